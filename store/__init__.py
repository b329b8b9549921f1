"""Chunk storage: PostgreSQL + pgvector through langchain-postgres, with a BM25 lexical index."""
