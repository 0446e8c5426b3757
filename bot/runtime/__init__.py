"""Assembly and execution: the tool pool, the pipeline, the schedulers, result budgets."""
