"""Benchmarks (run as modules, e.g. ``python -m bench.service_bench``)."""
