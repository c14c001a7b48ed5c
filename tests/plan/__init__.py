"""Tests of the execution planner."""
