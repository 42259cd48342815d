"""Writing a results page that a script generates, as `dsgd report` writes its pages: the
commentary below a "<!-- notes -->" line of the page it replaces is kept."""
import os


def write_page(path, page):
    """Writes `page` to `path`, keeping the old page's notes (from "<!-- notes -->" on)."""
    os.makedirs(os.path.dirname(os.path.abspath(path)), exist_ok=True)
    notes = ""
    if os.path.exists(path):
        with open(path) as f:
            old = f.read()
        if "<!-- notes -->" in old:
            notes = "\n" + old[old.index("<!-- notes -->"):]
    with open(path, "w") as f:
        f.write(page + notes)
