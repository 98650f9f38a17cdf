"""The help text of parallax-cli and its commands, which the man pages and the bash
completion are generated from (docs/cli.md): one source, so they cannot drift."""
import re
import subprocess

# Help shown only with a variant's flag (the graph commands, calibrate's inputs):
# each command's page and completion include these too.
VARIANTS = {
    "simulate": [["--model", "x.onnx"]],
    "plan": [["--model", "x.onnx"]],
    "search": [["--model", "x.onnx"]],
    "partition": [["--model", "x.onnx"]],
    "calibrate": [["--gemm", "x"], ["--kineto", "-"], ["--nccl-tests", "x"]],
}

FLAG = re.compile(r"(?<![\w-])--[a-z][a-z0-9-]*[a-z0-9]")


def run(cli, *args):
    out = subprocess.run([cli, *args], check=True, capture_output=True, text=True)
    return out.stdout


def commands(cli):
    """The command names, in the order the main help lists them."""
    names = []
    in_list = False
    for line in run(cli, "--help").splitlines():
        if line == "Commands:":
            in_list = True
        elif in_list and line == "":
            break
        elif in_list and re.match(r"  [a-z]", line):
            name = line.split()[0]
            if name not in names:
                names.append(name)
    return names


def summary(cli, command):
    """The main help's one-line description of `command`: its first entry's text."""
    lines = run(cli, "--help").splitlines()
    for i, line in enumerate(lines):
        if re.match(r"  %s( |$)" % re.escape(command), line):
            rest = line[30:].strip() if len(line) > 30 and line[29] == " " and line[28] == " " else ""
            if rest:
                return rest
            return lines[i + 1].strip()
    raise SystemExit("parallax-cli --help does not list %s" % command)


def texts(cli, command):
    """The command's help, then each variant's (when it differs)."""
    out = [run(cli, "help", command)]
    for variant in VARIANTS.get(command, []):
        text = run(cli, command, *variant, "--help")
        if text not in out:
            out.append(text)
    return out


def flags(cli, command):
    """Every --flag the command's help texts name, sorted."""
    found = set()
    for text in texts(cli, command):
        found.update(FLAG.findall(text))
    found.discard("--")
    return sorted(found | {"--help", "--version"})
