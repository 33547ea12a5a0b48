"""What tests, benchmarks and their kernels share: servers and pages, models, pixel reads, view requests."""
