"""A person's review of a finished run's flags (issue 13): the form, equation notes, applying decisions."""
