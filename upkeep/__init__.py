"""Chapter upkeep: the maintainer's commands over the notebooks (sync, execute, run
variants and seed scans, badges, the lab copy, data) and the cell analysis they share."""
