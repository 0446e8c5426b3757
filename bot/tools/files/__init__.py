"""Helpers shared by the file tools: encodings and line endings, quote normalisation, atomic
writes, staleness checks, diffs, images, PDFs and notebooks. One concept per module; no tool
logic here."""
