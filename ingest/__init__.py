"""Ingestion: read files and QA datasets into chunks and write them to the chunk store."""
