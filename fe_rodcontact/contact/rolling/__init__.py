"""Perfect rolling contact: the model, its geometry and rows, contact-set changes, records."""
