"""veru agents."""
