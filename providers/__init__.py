"""Model factories: embeddings and chat models, offline defaults first."""
