"""Support code for the tests: task trees, helpers shared by several test modules."""
