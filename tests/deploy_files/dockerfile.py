"""docker/Dockerfile read and carried out without a Docker engine.

Each stage gets a directory that stands for its image's root file system. COPY copies from the repository (the
build context) or from an earlier stage's directory, WORKDIR and ENV are followed, and every command of a RUN
(the parts of its `&&` chain) is carried out or checked by what it is:

  apt-get update, rm -rf /var/lib/apt/lists/*   nothing to do here (the package index of the image build)
  apt-get install PACKAGES                      every package must exist in this Debian release (the images'
                                                FROM); the stage records them (StageRoot.packages)
  groupadd / useradd --uid --gid                recorded (StageRoot.users), not added to this machine
  mkdir -p PATH, chown -R UID:GID PATH          done under the stage's directory
  anything else                                 run by /bin/sh in the stage's working directory, with the
                                                stage's ENV (the build stage's cmake steps)

A command the executor does not know how to map (an absolute path it would touch on this machine) is refused,
so a new step in the Dockerfile fails the test until it is taught here rather than being skipped.
"""
import json
import os
import re
import shlex
import shutil
import subprocess

from harness.env import REPO_ROOT

DOCKERFILE = os.path.join(REPO_ROOT, "docker", "Dockerfile")


class DockerfileError(AssertionError):
    pass


class Instruction:
    def __init__(self, keyword, args, line):
        self.keyword, self.args, self.line = keyword, args, line

    def exec_form(self):
        """The JSON array of an exec-form ENTRYPOINT, CMD or HEALTHCHECK ... CMD."""
        match = re.search(r"(\[.*\])\s*$", self.args)
        if not match:
            raise DockerfileError(f"line {self.line}: {self.keyword} is not in exec form: {self.args}")
        return json.loads(match.group(1))

    def __repr__(self):
        return f"{self.keyword} {self.args}"


class Stage:
    def __init__(self, name, base, line):
        self.name, self.base, self.line = name, base, line
        self.instructions = []

    def find(self, keyword):
        return [i for i in self.instructions if i.keyword == keyword]

    def env(self):
        """The stage's ENV, in order (later wins)."""
        values = {}
        for instruction in self.find("ENV"):
            for word in shlex.split(instruction.args):
                name, sep, value = word.partition("=")
                if not sep:
                    raise DockerfileError(f"line {instruction.line}: ENV without NAME=value: {instruction.args}")
                values[name] = value
        return values

    def user(self):
        users = self.find("USER")
        return users[-1].args.strip() if users else None


def parse(path=DOCKERFILE):
    """The stages of the Dockerfile in order, each with its instructions (continuation lines joined)."""
    stages = []
    logical, start = "", 0
    with open(path, encoding="utf-8") as dockerfile:
        lines = dockerfile.read().splitlines()
    for number, raw in enumerate(lines, 1):
        if not logical and (not raw.strip() or raw.lstrip().startswith("#")):
            continue
        if logical and raw.lstrip().startswith("#"):
            continue  # a comment inside a continued instruction
        if not logical:
            start = number
        if raw.endswith("\\"):
            logical += raw[:-1] + " "
            continue
        logical += raw
        keyword, _, args = logical.strip().partition(" ")
        keyword = keyword.upper()
        if keyword == "FROM":
            match = re.fullmatch(r"(\S+)\s+AS\s+(\S+)", args.strip(), re.IGNORECASE)
            if not match:
                raise DockerfileError(f"line {start}: every stage must be named: FROM {args}")
            stages.append(Stage(match.group(2), match.group(1), start))
        elif not stages:
            raise DockerfileError(f"line {start}: {keyword} before the first FROM")
        else:
            stages[-1].instructions.append(Instruction(keyword, args.strip(), start))
        logical = ""
    return {stage.name: stage for stage in stages}


def split_chain(command):
    """The commands of a shell `a && b && c` line, each as its own text (quotes kept, for /bin/sh) and its
    words; anything else that joins commands (`;`, `||`, pipes, redirections, `&`) is refused: the executor
    maps single commands only."""
    segments, current, quote, depth, i = [], "", None, 0, 0
    while i < len(command):
        char = command[i]
        if quote:
            if char == "\\" and quote == '"':
                current += command[i:i + 2]
                i += 2
                continue
            if char == quote:
                quote = None
        elif char in "'\"":
            quote = char
        elif command.startswith("$(", i):
            depth += 1
        elif char == ")" and depth:
            depth -= 1
        elif depth == 0 and command.startswith("&&", i):
            segments.append(current)
            current, i = "", i + 2
            continue
        elif depth == 0 and char in ";|<>&":
            raise DockerfileError(f"RUN uses {char!r}; only `&&` chains are carried out here: {command}")
        current += char
        i += 1
    segments.append(current)
    return [(text.strip(), shlex.split(text)) for text in segments if text.strip()]


def strip_env_assignments(words):
    """`DEBIAN_FRONTEND=noninteractive apt-get ...` -> (assignments, the command's words)."""
    assignments = {}
    while words and re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*=.*", words[0]):
        name, _, value = words[0].partition("=")
        assignments[name] = value
        words = words[1:]
    return assignments, words


def apt_candidate(package):
    """The version apt would install of `package` in this Debian release, or None."""
    proc = subprocess.run(["apt-cache", "policy", package], capture_output=True, text=True, timeout=60)
    match = re.search(r"^\s*Candidate:\s*(\S+)", proc.stdout, re.MULTILINE)
    return match.group(1) if match and match.group(1) != "(none)" else None


def package_closure(packages):
    """Every package that installing `packages` (without recommends) brings in, them included."""
    proc = subprocess.run(["apt-cache", "depends", "--recurse", "--no-recommends", "--no-suggests",
                           "--no-conflicts", "--no-breaks", "--no-replaces", "--no-enhances", *packages],
                          capture_output=True, text=True, timeout=300, check=True)
    closure = set()
    for line in proc.stdout.splitlines():
        line = line.strip()
        if not line:
            continue
        if ":" in line and line.split(":", 1)[0].strip() in ("Depends", "PreDepends"):
            name = line.split(":", 1)[1].strip()
        elif not line.startswith(("Depends", "PreDepends", "|")):
            name = line
        else:
            continue
        closure.add(name.strip("<>").split(":")[0])
    return closure


class StageRoot:
    """One stage carried out into `root`, the directory standing for its image's /."""

    def __init__(self, stage, root, stages_done, run_env=None, log=None):
        self.stage, self.root = stage, root
        self.stages_done = stages_done  # name -> StageRoot of the stages before it
        self.run_env = dict(run_env or {})
        self.log = log or (lambda line: None)
        self.workdir = "/"
        self.env = {}
        self.packages = []
        self.users = {}  # name -> (uid, gid)
        self.groups = {}  # name -> gid

    def host_path(self, image_path):
        """Where an absolute path of the image lives here."""
        if not image_path.startswith("/"):
            image_path = os.path.join(self.workdir, image_path)
        normal = os.path.normpath(image_path)
        return os.path.join(self.root, normal.lstrip("/"))

    def carry_out(self):
        os.makedirs(self.root, exist_ok=True)
        for instruction in self.stage.instructions:
            handler = getattr(self, "_" + instruction.keyword.lower(), None)
            if handler is None:
                continue  # USER, EXPOSE, VOLUME, HEALTHCHECK, ENTRYPOINT, CMD: read by the tests
            self.log(f"{self.stage.name}: {instruction}")
            handler(instruction)
        return self

    def _workdir(self, instruction):
        self.workdir = os.path.normpath(os.path.join(self.workdir, instruction.args))
        os.makedirs(self.host_path(self.workdir), exist_ok=True)

    def _env(self, instruction):
        for word in shlex.split(instruction.args):
            name, _, value = word.partition("=")
            self.env[name] = value

    def _copy(self, instruction):
        words = shlex.split(instruction.args)
        source_root = REPO_ROOT
        if words[0].startswith("--from="):
            source_stage = words.pop(0).split("=", 1)[1]
            if source_stage not in self.stages_done:
                raise DockerfileError(f"line {instruction.line}: COPY --from={source_stage}: no such earlier stage")
            source_root = self.stages_done[source_stage].root
        if any(w.startswith("--") for w in words):
            raise DockerfileError(f"line {instruction.line}: COPY option not carried out here: {instruction}")
        *sources, destination = words
        for source in sources:
            origin = os.path.join(source_root, source.lstrip("/"))
            if not os.path.exists(origin):
                raise DockerfileError(f"line {instruction.line}: COPY source {source} does not exist ({origin})")
            target = self.host_path(destination)
            if destination.endswith("/") or len(sources) > 1:
                target = os.path.join(target, os.path.basename(source.rstrip("/")))
            if os.path.isdir(origin):
                # Docker copies a directory's contents into the destination.
                shutil.copytree(origin, target, dirs_exist_ok=True, symlinks=True)
            else:
                os.makedirs(os.path.dirname(target), exist_ok=True)
                shutil.copy2(origin, target)

    def _run(self, instruction):
        for text, words in split_chain(instruction.args):
            assignments, words = strip_env_assignments(words)
            self._run_command(instruction, text, assignments, words)

    def _run_command(self, instruction, text, assignments, words):
        program = words[0]
        if program == "apt-get" and words[1:2] == ["update"]:
            return
        if program == "apt-get" and "install" in words:
            packages = [w for w in words[words.index("install") + 1:] if not w.startswith("-")]
            missing = [p for p in packages if apt_candidate(p) is None]
            if missing:
                raise DockerfileError(f"line {instruction.line}: no such package in this Debian release: {missing}")
            self.packages += packages
            return
        if words == ["rm", "-rf", "/var/lib/apt/lists/*"]:
            return
        if program == "groupadd":
            gid = _option(words, "--gid")
            self.groups[words[-1]] = int(gid)
            return
        if program == "useradd":
            uid, gid = _option(words, "--uid"), _option(words, "--gid")
            self.users[words[-1]] = (int(uid), int(gid))
            return
        if program == "mkdir" and words[1] == "-p":
            for path in words[2:]:
                os.makedirs(self.host_path(path), exist_ok=True)
            return
        if program == "chown" and words[1] == "-R":
            uid, _, gid = words[2].partition(":")
            for path in words[3:]:
                for directory, subdirs, files in os.walk(self.host_path(path)):
                    for name in [directory] + [os.path.join(directory, f) for f in subdirs + files]:
                        os.lchown(name, int(uid), int(gid))
            return
        for word in words[1:]:
            if word.startswith("/"):
                raise DockerfileError(f"line {instruction.line}: {' '.join(words)} names an absolute path; "
                                      "teach tests/deploy_files/dockerfile.py to map it")
        env = {"PATH": os.environ["PATH"], "HOME": self.host_path("/root")}
        env.update(self.run_env)
        env.update(self.env)
        env.update(assignments)
        self.log(f"{self.stage.name}: $ {text}")
        proc = subprocess.run(["/bin/sh", "-c", text], cwd=self.host_path(self.workdir), env=env,
                              capture_output=True, text=True)
        if proc.returncode != 0:
            raise DockerfileError(f"line {instruction.line}: `{text}` exited {proc.returncode}\n"
                                  f"{proc.stdout[-4000:]}\n{proc.stderr[-4000:]}")


def _option(words, name):
    if name not in words:
        raise DockerfileError(f"{words[0]} without {name}: {' '.join(words)} (a fixed id is required)")
    return words[words.index(name) + 1]
