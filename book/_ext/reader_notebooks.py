"""Reader copies of the chapters, written into the site by every build.

The conversion is `reader_copies.py` beside it; this extension runs it when the HTML build
finishes (so `make book`, the tests' build and CI publish the same copies), with the
figure numbers, section titles and bibliography anchors of the build itself.

The launch buttons (Binder, Colab) open the reader copies: they point at the branch
`reader_copies_branch` (default `notebooks`), to which the book workflow pushes the copies in
the repository's layout (`notebooks/NN-name.ipynb`, plus `binder/`). The download button
serves `_sources/notebooks/NN-name.ipynb`, which is replaced by the reader copy.
"""

import reader_copies as converter
from sphinx.util import logging

LOGGER = logging.getLogger(__name__)


def _launch_from_reader_branch(app, config):
    options = dict(config.html_theme_options or {})
    if options.get("repository_url"):
        options["repository_branch"] = config.reader_copies_branch
        config.html_theme_options = options


def _keep_source(app, docname, source):
    """The notebook as the build read it (a later edit must not mix into this build)."""
    if str(app.env.doc2path(docname)).endswith(".ipynb"):
        app.reader_copy_sources[docname] = source[0]


def _write(app, exception):
    if exception is not None or app.builder.format != "html":
        return
    options = app.config.html_theme_options or {}
    repository = options.get("repository_url", "")
    site = converter.site_url(repository, app.config.html_baseurl)
    written = converter.write_copies(
        app.env,
        app.srcdir,
        app.outdir,
        site,
        repository,
        app.config.reader_copies_branch,
        app.reader_copy_sources,
    )
    LOGGER.info(f"reader copies: {len(written)} chapters, linked to {site}")


def setup(app):
    app.add_config_value("reader_copies_branch", "notebooks", "html")
    app.connect("config-inited", _launch_from_reader_branch, priority=900)
    app.reader_copy_sources = {}
    # Before notebook_filters.py rewrites the source for the page.
    app.connect("source-read", _keep_source, priority=100)
    app.connect("build-finished", _write)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
