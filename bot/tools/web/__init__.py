"""WebFetch's machinery: the network guard (:mod:`.guard`), the fetch with re-checked redirects
(:mod:`.fetch`) and HTML → Markdown with prompt-guided selection for long pages (:mod:`.markdown`)."""
