"""The examples of the user documentation: found in its Markdown, run as a reader would type them.

An example is a fenced block a reader is meant to run:
  * a ```sh (or bash, shell) block with a command that runs `curl`, `psql`, `pg_dump`, `pg_restore`, `createdb` or
    `dropdb`;
  * a ```sql block, which a reader runs in psql (here: `psql -f`, as the database superuser).
Other blocks (```text output, ```json bodies, `make run`, client code) are not examples.

A file's examples run in document order in one shell session (ExampleSession): the shell variables and
functions one block sets (`LEASE=$(curl ... | jq -r ...)`) are there for the blocks after it, as in one
terminal. A block fails when a command of it fails (bash -euo pipefail), when curl gets an answer of 400 or
more (curl runs with --fail-with-body) or when psql meets an SQL error (ON_ERROR_STOP).

`<!-- example: skip (reason) -->` on the line before a block's fence (blank lines between are allowed)
exempts that block; the reason is required.

Stdlib only: the parser knows just enough Markdown for fenced blocks (CommonMark's ``` and ~~~ fences,
indented inside list items).
"""
import dataclasses
import glob
import os
import re
import shlex
import signal
import subprocess
import sys

# Where the user documentation is, relative to the repository root.
DOCUMENTATION = ("README.md", "CONTRIBUTING.md", "sql/README.md", "tests/harness/README.md", "docs/*.md")

SHELL_LANGUAGES = {"sh", "bash", "shell"}
SQL_LANGUAGES = {"sql"}
# A command line that runs curl, psql or one of PostgreSQL's dump and database tools: at the start of a line, after
# ; & | ( or in $( ... ).
EXAMPLE_COMMAND = re.compile(r"(?:^|[;&|(]|\$\()\s*(?:[A-Za-z_][A-Za-z0-9_]*=\S*\s+)*"
                             r"(?:curl|psql|pg_dump|pg_restore|createdb|dropdb)(?:\s|$)")
FENCE_OPEN = re.compile(r"^(?P<indent> *)(?P<fence>`{3,}|~{3,})\s*(?P<info>[^`]*?)\s*$")
MARKER = re.compile(r"^\s*<!--\s*example:\s*(?P<directive>.*?)\s*-->\s*$")
SKIP = re.compile(r"^skip(?:\s*\((?P<reason>.*)\))?$")

BLOCK_TIMEOUT_S = 120


def documented_addresses(broker_port, database):
    """What the docs address (the broker and the database of `make run`) -> what this test run addresses.

    Every other connection detail comes from the session's environment: psql finds the database through
    PGHOST, PGPORT, PGUSER, PGPASSWORD and PGDATABASE.
    """
    return {
        "localhost:6632": f"127.0.0.1:{broker_port}",
        "127.0.0.1:6632": f"127.0.0.1:{broker_port}",
        "-h 127.0.0.1 -p 55432": f"-h {database.host} -p {database.port}",
        "-d queen": f"-d {database.dbname}",
    }


def substitute(text, addresses):
    """`text` with every documented address replaced (only where it ends: localhost:66320 is not one)."""
    for documented, actual in addresses.items():
        text = re.sub(re.escape(documented) + r"(?![\w])", lambda _m, a=actual: a, text)
    return text


@dataclasses.dataclass
class Block:
    path: str            # relative to the documentation root, e.g. docs/procedures.md
    line: int            # 1-based line of the opening fence
    language: str        # the fence's first word, lower case ("" when unlabelled)
    text: str            # the block's lines, without the list indentation
    skip_reason: str = None

    @property
    def id(self):
        return f"{self.path}:{self.line}"

    @property
    def is_sql(self):
        return self.language in SQL_LANGUAGES

    @property
    def is_example(self):
        if self.is_sql:
            return True
        return self.language in SHELL_LANGUAGES and runs_curl_or_psql(self.text)


@dataclasses.dataclass
class DocFile:
    path: str
    blocks: list         # every fenced block, examples or not
    problems: list       # "path:line: what is wrong" for markers and fences the suite cannot trust

    @property
    def examples(self):
        return [b for b in self.blocks if b.is_example]


def runs_curl_or_psql(text):
    for line in text.splitlines():
        code = re.sub(r"(^|\s)#.*$", "", line)   # a comment mentioning curl is not a command
        if EXAMPLE_COMMAND.search(code):
            return True
    return False


def parse(path, text):
    """DocFile of one Markdown text: its fenced blocks, skip markers attached, and any problems."""
    lines = text.splitlines()
    blocks, problems = [], []
    pending = None        # (line number, directive) of a marker waiting for its block
    i = 0
    while i < len(lines):
        line = lines[i]
        marker = MARKER.match(line)
        if marker:
            if pending:
                problems.append(f"{path}:{pending[0]}: example marker not followed by a fenced block")
            pending = (i + 1, marker.group("directive"))
            i += 1
            continue
        if re.search(r"<!--\s*example", line):
            problems.append(f"{path}:{i + 1}: malformed example marker (expected `<!-- example: skip (reason) -->` "
                            f"alone on its line): {line.strip()}")
        opening = FENCE_OPEN.match(line)
        if not opening:
            if line.strip() and pending:
                problems.append(f"{path}:{pending[0]}: example marker not followed by a fenced block")
                pending = None
            i += 1
            continue
        indent, fence = len(opening.group("indent")), opening.group("fence")
        closing = re.compile(r"^\s*" + re.escape(fence[0]) + "{" + str(len(fence)) + r",}\s*$")
        end = i + 1
        while end < len(lines) and not closing.match(lines[end]):
            end += 1
        body = [_dedent(l, indent) for l in lines[i + 1:end]]
        block = Block(path=path, line=i + 1, language=(opening.group("info").split() or [""])[0].lower(),
                      text="\n".join(body) + "\n")
        if pending:
            _apply_marker(block, pending, problems)
            pending = None
        if block.language == "" and runs_curl_or_psql(block.text):
            problems.append(f"{block.id}: an unlabelled block runs curl or psql: fence it as ```sh (an example) "
                            f"or ```text (output)")
        blocks.append(block)
        i = end + 1
    if pending:
        problems.append(f"{path}:{pending[0]}: example marker not followed by a fenced block")
    return DocFile(path=path, blocks=blocks, problems=problems)


def _dedent(line, indent):
    stripped = len(line) - len(line.lstrip(" "))
    return line[min(stripped, indent):]


def _apply_marker(block, pending, problems):
    marker_line, directive = pending
    skip = SKIP.match(directive)
    if not skip:
        problems.append(f"{block.path}:{marker_line}: unknown example marker `{directive}` "
                        f"(the one marker is `<!-- example: skip (reason) -->`)")
    elif not (skip.group("reason") or "").strip():
        problems.append(f"{block.path}:{marker_line}: a skip marker needs its reason: "
                        f"`<!-- example: skip (why this block cannot run) -->`")
    elif not block.is_example:
        problems.append(f"{block.path}:{marker_line}: skip marker on a block that is not an example "
                        f"(```{block.language or ' (unlabelled)'}): remove it")
    else:
        block.skip_reason = " ".join(skip.group("reason").split())


def documentation_files(root):
    """Repository-relative paths of the documentation files under `root`, in a stable order."""
    found = []
    for pattern in DOCUMENTATION:
        for path in sorted(glob.glob(os.path.join(root, pattern))):
            found.append(os.path.relpath(path, root))
    return found


def parse_files(root, paths=None):
    docs = []
    for path in (paths if paths is not None else documentation_files(root)):
        with open(os.path.join(root, path), encoding="utf-8") as fh:
            docs.append(parse(path, fh.read()))
    return docs


@dataclasses.dataclass
class Result:
    block: Block
    returncode: int
    stdout: str
    stderr: str
    script: str                 # what ran, addresses substituted
    earlier_failures: list      # ids of the file's earlier blocks that failed before this one ran

    @property
    def ok(self):
        return self.returncode == 0

    def report(self):
        lines = [f"example {self.block.id} failed (exit {self.returncode})"]
        if self.earlier_failures:
            lines.append(f"earlier blocks of the file failed first: {', '.join(self.earlier_failures)}")
        lines += ["--- ran:", self.script.rstrip(), "--- stdout:", self.stdout.rstrip(),
                  "--- stderr:", self.stderr.rstrip()]
        return "\n".join(lines)


# Runs one block: the state the file's earlier blocks left, then the block, then its state saved again. The
# variables a fresh bash has (its baseline) are not saved; everything a block set is.
DRIVER = r"""set -euo pipefail
__doc_baseline=$'\n'"$(compgen -v)"$'\n'
__doc_save() {
  local __doc_name
  {
    for __doc_name in $(compgen -v); do
      case $__doc_name in __doc_*) continue ;; esac
      case $__doc_baseline in *$'\n'"$__doc_name"$'\n'*) continue ;; esac
      declare -p "$__doc_name" 2>/dev/null || true
    done
    declare -f
  } > %(state)s.new && mv %(state)s.new %(state)s
}
if [ -f %(state)s ]; then source %(state)s; fi
trap __doc_save EXIT
# An answer of 400 or more fails the block; ON_ERROR_STOP makes an SQL error fail psql; -X skips ~/.psqlrc.
curl() { command curl --fail-with-body --show-error "$@"; }
psql() { command psql -X -v ON_ERROR_STOP=1 "$@"; }
%(body)s
"""


class ExampleSession:
    """The examples of one file, run in document order in one shell session against one broker and database.

    addresses: documented_addresses() of this run. env: the whole environment of the shell (PG* variables
    included). workdir: the shell's working directory, which also holds the state between blocks.
    """

    def __init__(self, doc, workdir, addresses, env):
        self.doc = doc
        self.runnable = [b for b in doc.examples if not b.skip_reason]
        self.workdir = workdir
        self.addresses = addresses
        self.env = env
        self.results = {}     # block id -> Result
        self.state = os.path.join(workdir, ".example-state.sh")

    def run_through(self, block):
        """Run `block` after every earlier runnable block of the file that has not run yet (so one block,
        selected alone with -k, still finds what the blocks before it set); returns its Result."""
        for earlier in self.runnable:
            if earlier.id not in self.results:
                self.results[earlier.id] = self._run(earlier)
            if earlier.id == block.id:
                return self.results[block.id]
        raise ValueError(f"{block.id} is not a runnable example of {self.doc.path}")

    def check(self, block):
        """Run `block` (run_through) and raise AssertionError with its report when it failed: what each
        example's test does."""
        result = self.run_through(block)
        assert result.ok, result.report()
        return result

    def _run(self, block):
        failed_before = [b for b, r in self.results.items() if not r.ok]
        text = substitute(block.text, self.addresses)
        name = f"block-{block.line}"
        if block.is_sql:
            sql_path = os.path.join(self.workdir, name + ".sql")
            with open(sql_path, "w", encoding="utf-8") as fh:
                fh.write(text)
            body = f"psql -f {shlex.quote(sql_path)}"
        else:
            block_path = os.path.join(self.workdir, name + ".sh")
            with open(block_path, "w", encoding="utf-8") as fh:
                fh.write(text)
            body = f"source {shlex.quote(block_path)}"
        driver_path = os.path.join(self.workdir, name + ".driver.sh")
        with open(driver_path, "w", encoding="utf-8") as fh:
            fh.write(DRIVER % {"state": shlex.quote(self.state), "body": body})
        proc = subprocess.Popen(["bash", driver_path], cwd=self.workdir, env=self.env, stdin=subprocess.DEVNULL,
                                stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                                start_new_session=True)
        try:
            stdout, stderr = proc.communicate(timeout=BLOCK_TIMEOUT_S)
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, signal.SIGKILL)
            stdout, stderr = proc.communicate()
            stderr += f"\n(killed: the block ran longer than {BLOCK_TIMEOUT_S} s)"
        return Result(block=block, returncode=proc.returncode, stdout=stdout, stderr=stderr, script=text,
                      earlier_failures=failed_before)


def shell_environment(database, extra=None):
    """The environment of an example session: psql reaches `database` (a harness PgTarget) as its
    superuser, as `make run`'s psql line does; python3 is this interpreter's (the tour extracts fields with it)."""
    env = {k: os.environ[k] for k in ("HOME", "LANG", "LC_ALL", "TZ") if k in os.environ}
    env["PATH"] = os.path.dirname(sys.executable) + os.pathsep + os.environ.get("PATH", "/usr/bin:/bin")
    env.update(PGHOST=database.host, PGPORT=str(database.port), PGUSER=database.user,
               PGPASSWORD=database.password, PGDATABASE=database.dbname, PGCONNECT_TIMEOUT="10")
    env.update(extra or {})
    return env
