"""The numba game kernel: flat-array rules functions, chance streams and records.

Importing this package is cheap; the jitted modules are imported on demand.
"""
