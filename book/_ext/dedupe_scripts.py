"""Drop repeated <script> entries from each page.

sphinx-thebe registers its inline configuration script twice under Jupyter Book 1, which
redeclares `const THEBE_JS_URL` and throws a JavaScript error on every page.
"""


def _dedupe(app, pagename, templatename, context, doctree):
    seen, unique = set(), []
    for script in context.get("script_files", []):
        # The copies differ only in filename None versus "".
        key = (getattr(script, "filename", script) or "",
               tuple(sorted(getattr(script, "attributes", {}).items())))
        if key not in seen:
            seen.add(key)
            unique.append(script)
    context["script_files"] = unique


def setup(app):
    app.connect("html-page-context", _dedupe, priority=900)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
