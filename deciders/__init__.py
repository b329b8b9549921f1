"""Decision makers behind each node: one protocol per node, an LLM and a model-free version of each."""
