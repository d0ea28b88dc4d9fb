"""legumes agents."""
