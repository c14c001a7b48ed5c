"""The input files as text: span trees, the composite-only view the loader reads, scripted tools.

``check`` pairs composite tools with the scripted tools beside them, and
``migrate`` rewrites the files; both read their inputs through here.
"""
