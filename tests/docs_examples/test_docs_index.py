"""The way into the documentation: a short README, an index that reaches every page, a glossary of the terms the
pages use, and links that lead somewhere (docs/README.md)."""
import os
import re

from harness import env as harness_env

ROOT = harness_env.REPO_ROOT
DOCS = os.path.join(ROOT, "docs")
README_MAX_LINES = 200
GLOSSARY_TERMS = ("Cell", "Consumer group", "Lease", "Maintenance", "Partition", "Queue mode", "Spool", "Tenant")
# [text](target) with a relative target: the file part before any #anchor.
LINK = re.compile(r"\[[^\]]*\]\((?!https?:|mailto:|#)([^)#\s]+)(?:#[^)\s]*)?\)")
FENCE = re.compile(r"^\s*(```|~~~)")


def read(path):
    with open(path, encoding="utf-8") as f:
        return f.read()


def prose(text):
    """The text outside fenced blocks (a link inside an example is not a link)."""
    lines, fenced = [], False
    for line in text.splitlines():
        if FENCE.match(line):
            fenced = not fenced
            continue
        if not fenced:
            lines.append(line)
    return "\n".join(lines)


def markdown_files():
    files = [os.path.join(ROOT, name) for name in ("README.md", "CONTRIBUTING.md", "CHANGELOG.md")]
    files += [os.path.join(DOCS, name) for name in sorted(os.listdir(DOCS)) if name.endswith(".md")]
    return files


def test_readme_is_a_way_in_not_the_reference():
    text = read(os.path.join(ROOT, "README.md"))
    assert len(text.splitlines()) < README_MAX_LINES, "README.md holds what a newcomer needs; reference goes to docs/"
    for needed in ("make run", "make test", "docs/README.md"):
        assert needed in text, f"README.md does not mention {needed}"


def test_the_index_links_every_page():
    index = read(os.path.join(DOCS, "README.md"))
    linked = set(LINK.findall(index))
    pages = [name for name in os.listdir(DOCS) if name.endswith(".md") and name != "README.md"]
    assert pages, "no pages found under docs/"
    assert sorted(p for p in pages if p not in linked) == [], "docs/README.md must link every page"


def test_the_glossary_defines_the_terms():
    index = read(os.path.join(DOCS, "README.md"))
    glossary = index.split("## Glossary", 1)
    assert len(glossary) == 2, "docs/README.md has no Glossary section"
    missing = [term for term in GLOSSARY_TERMS if f"- **{term}**" not in glossary[1]]
    assert missing == [], f"the glossary does not define {missing}"


def test_relative_links_lead_to_files_that_exist():
    broken, checked = [], 0
    for path in markdown_files():
        for target in LINK.findall(prose(read(path))):
            checked += 1
            if not os.path.exists(os.path.normpath(os.path.join(os.path.dirname(path), target))):
                broken.append(f"{os.path.relpath(path, ROOT)}: {target}")
    assert checked > 100, f"only {checked} relative links found: the pattern no longer matches the docs' links"
    assert broken == [], "broken links:\n" + "\n".join(broken)
