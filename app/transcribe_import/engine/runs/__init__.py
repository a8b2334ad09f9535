"""Import runs: the run model, its store, and the executor that commits a plan."""
