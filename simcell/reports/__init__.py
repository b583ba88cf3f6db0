"""Balance reports: statistics engine, report sections, figures, HTML and Markdown."""
