"""Tests of the config loader and validator."""
