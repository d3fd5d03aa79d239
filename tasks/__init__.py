"""One module per stage: a plain function that does the work, and a thin ``@task`` around it."""
