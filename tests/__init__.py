"""The test suite (a package, so that tests and benchmarks import its helpers as tests.helpers)."""
