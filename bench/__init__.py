"""`make bench`: speed of the window models, each measured against a baseline in the
same run and reported as a ratio (absolute seconds depend on the machine)."""
