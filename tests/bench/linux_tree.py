"""A git repository shaped like Linux 6.1, generated from a seed at any number of files.

Not the real tree: a generator calibrated on the Debian package
linux-source-6.1 (6.1.192), measured with its Debian-only top-level
``.gitignore`` rule removed: 78,624 files, 5,096 folders, 1.30 GB. The
figures it reproduces, scaled by ``files / 78,624`` (786, 7,862 and 78,624
files are 1, 10 and 100 %):

- files by depth (folders above them): ``FILES_AT_DEPTH``;
- folders by depth, those holding no file (only folders) and those holding
  folders, measured on the same tree: ``FOLDERS_AT_DEPTH``, ``EMPTY_AT_DEPTH``,
  ``PARENTS_AT_DEPTH``;
- files per folder holding files (percentiles ``FILES_PER_FOLDER``: 10 %: 1,
  50 %: 6, 90 %: 32, 99 %: 156, max 2,545; the 95, 99.5 and 99.9 % points
  measured on the same tree) and folders per folder holding folders
  (``FAN_OUT``, likewise measured);
- file sizes: ``SIZE_HISTOGRAM``, files by ``floor(log2(size))`` (percentiles
  1 %: 71 B, 50 %: 3,869 B, 99 %: 124,603 B, max 23.9 MB);
- names: a ``Makefile`` in 58 % and a ``Kconfig`` in 34 % of the folders
  holding files, the rest ``.c``, ``.h``, ``.rst``, ``.yaml``, ``.dts``... in
  Linux's proportions (``EXTENSIONS``), a ``.gitignore`` in one folder in 18,
  the root's 14 files by their real names.

How the tree is built: each depth's files are apportioned from the depth
table, and its folders from the folder tables (at least one where there are
files). A depth's files are split among its folders holding files by weights
drawn from the files-per-folder percentiles (log-linear between them), each
folder getting at least one; its folders are hung under the folders of the
depth above the same way, by weights drawn from the fan-out percentiles,
among as many parents as the table says, the folders holding no file always
among them. So at every size the folders' counts by depth follow Linux's and
their files and sub-folders follow its spread.

Sizes are a stratified sample of the histogram (each bucket's count
apportioned, uniform within a bucket), with at least one file of 512 KiB
to 1 MB at every size (a big file to edit, under surehand's read cap). Uniform within a
bucket, the full tree holds 1.40 GB where Linux has 1.30 GB (its sizes lean
to each bucket's low end); every size is written whole, no byte cap. Contents
are C-like lines (half of them 44 to 59 characters, nine in ten 37 to 64)
cut from one seeded 4 MB corpus, each file ending in ``\\n``; a line calling
``of_match_ptr`` (``NEEDLE``) is in about one file in 80 (of those of 100 B to
1 MB; Linux has it in one in 76). The ``.gitignore`` and other dot-files are
committed (forced past the rule ``.*``, as upstream's are), the root's
holding Linux's main rules; beside one ``.c`` file in 10 lie its ignored
``.o`` (binary) and ``.*.o.cmd``, and ``include/generated/`` (ignored) holds a
few build outputs: these are extra to ``files``.

Committed with gc off: ``git add`` writes the blobs straight into one pack
(``core.bigFileThreshold=1``, compression level 1: 78,000 loose objects are
slow to write and slower to remove on a slow disk), then ``repack -a -d``
packs the rest. The full tree takes about 30 s to write and 40 s to commit
on two busy cores.

Run: ``python tests/bench/linux_tree.py ROOT [--files N] [--seed S]``
"""

from __future__ import annotations

import argparse
import bisect
import math
import random
import re
import subprocess
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

LINUX_FILES = 78_624
FILES_AT_DEPTH = [14, 1102, 13743, 24936, 20830, 11680, 3068, 2510, 510, 231]
FOLDERS_AT_DEPTH = [1, 24, 608, 1505, 1383, 835, 287, 233, 164, 56]
EMPTY_AT_DEPTH = [0, 2, 12, 73, 97, 50, 18, 31, 38, 0]
PARENTS_AT_DEPTH = [1, 20, 214, 308, 288, 115, 40, 48, 40, 0]
# (percentile, value): log-linear between the points
FILES_PER_FOLDER = [(0, 1), (10, 1), (25, 3), (50, 6), (75, 14), (90, 32), (95, 55),
                    (99, 156), (99.5, 214), (99.9, 513), (100, 2545)]  # fmt: skip
FAN_OUT = [(0, 1), (25, 1), (50, 2), (75, 4), (90, 10), (95, 20), (99, 49), (99.5, 82),
           (99.9, 102), (100, 137)]  # fmt: skip
SIZE_HISTOGRAM = {-1: 30, 1: 2, 2: 2, 3: 51, 4: 151, 5: 425, 6: 985, 7: 2366, 8: 5088,
                  9: 7503, 10: 11022, 11: 12778, 12: 12886, 13: 11014, 14: 7655, 15: 4229,
                  16: 1723, 17: 450, 18: 129, 19: 51, 20: 44, 21: 11, 22: 19, 23: 9, 24: 1}  # fmt: skip
EXTENSIONS = {".c": 32004, ".h": 23413, ".rst": 3249, ".yaml": 2984, ".dts": 2622,
              ".txt": 2082, ".dtsi": 1898, "": 1752, ".S": 1331, ".sh": 771, ".json": 598}  # fmt: skip
MAKEFILE, KCONFIG, GITIGNORE = 0.58, 0.34, 1 / 18  # of the folders holding files
ROOT_NAMES = [".gitignore", "Makefile", "Kconfig", "README", "COPYING", "MAINTAINERS",
              "CREDITS", "Kbuild", ".mailmap", ".clang-format", ".cocciconfig",
              ".get_maintainer.ignore", ".gitattributes", ".rustfmt.toml"]  # fmt: skip
TOP_NAMES = ["drivers", "Documentation", "fs", "net", "tools", "samples", "include", "sound",
             "arch", "kernel", "lib", "scripts", "security", "LICENSES", "mm", "rust",
             "crypto", "usr", "virt", "block", "certs", "init", "io_uring", "ipc"]  # fmt: skip
# folder names below the top, and identifiers in the text
WORDS = ["core", "pci", "usb", "phy", "i2c", "spi", "gpio", "clk", "dma", "media", "video",
         "audio", "input", "hid", "mmc", "mtd", "power", "thermal", "iio", "rtc", "tty",
         "serial", "scsi", "ata", "nvme", "crypto", "firmware", "soc", "platform", "misc",
         "gpu", "drm", "bridge", "panel", "mfd", "regulator", "pinctrl", "watchdog", "leds",
         "hwmon", "acpi", "irqchip", "mailbox", "bus", "base", "fpga", "vfio", "virtio", "xen",
         "ethernet", "wireless", "can", "bluetooth", "mdio", "intel", "amd", "qcom", "mediatek",
         "rockchip", "tegra", "imx", "renesas", "marvell", "kernel", "mm", "lib", "boot", "dts",
         "configs", "uapi", "sys", "ext4", "btrfs", "xfs", "nfs", "ceph", "selftests", "bpf",
         "perf", "trace", "util"]  # fmt: skip
IDENTS = ["dev", "priv", "reg", "buf", "len", "irq", "clk", "dma", "queue", "ring", "desc",
          "ctx", "node", "port", "link", "mode", "cfg", "data", "state", "lock", "flags",
          "addr", "base", "offset", "count", "index", "entry", "page", "list", "head", "skb",
          "req", "resp", "info", "ops", "map", "mask", "val", "cmd", "status", "work", "timer",
          "event", "chan", "pipe", "hw", "fw"]  # fmt: skip
GITIGNORE_RULES = """\
.*
*.a
*.bin
*.dtb
*.gz
*.ko
*.mod
*.mod.c
*.o
*.o.*
*.so
*.symtypes
*.tar
Module.symvers
modules.order
/vmlinux
/vmlinux.symvers
/System.map
/modules.builtin
/include/config/
/include/generated/
/arch/*/include/generated/
tags
TAGS
cscope.*
"""
DOT_FILES = {".gitignore": "*.lds\n/gen_*\n", ".gitattributes": "*.c diff=cpp\n*.h diff=cpp\n"}
NEEDLE = "of_match_ptr"
NEAR_1MB = 1_000_000  # surehand reads files up to this size
NEEDLE_RANGE = (100, NEAR_1MB)  # sizes of the files it may be in
NEEDLE_ODDS = 1 / 80
CORPUS_BYTES = 4 << 20
IDENTITY = ["-c", "user.name=bench", "-c", "user.email=b@example.com", "-c", "gc.auto=0",
            "-c", "maintenance.auto=false", "-c", "core.quotePath=false"]  # fmt: skip


@dataclass(frozen=True)
class Tree:
    """What ``generate`` made: tracked files and folders, their bytes, the extras."""

    files: int
    folders: int
    bytes: int
    needles: int  # files with a line calling NEEDLE
    ignored: int  # build outputs beside the tracked files
    seconds: float  # writing the files, without git


def apportion(total: int, weights: Sequence[float], least: int = 0) -> list[int]:
    """``total`` split in proportion to ``weights`` (largest remainders), each at least
    ``least`` while ``total`` allows."""
    counts = [least] * len(weights)
    rest, whole = total - least * len(weights), sum(weights)
    if rest <= 0 or whole <= 0:
        return counts if rest >= 0 else [1] * total + [0] * (len(weights) - total)
    shares = [rest * w / whole for w in weights]
    counts = [c + math.floor(s) for c, s in zip(counts, shares, strict=True)]
    order = sorted(range(len(weights)), key=lambda i: math.floor(shares[i]) - shares[i])
    for i in order[: total - sum(counts)]:
        counts[i] += 1
    return counts


def draw(points: list[tuple[float, int]], rng: random.Random) -> float:
    """A value from the percentiles ``points``, log-linear between them."""
    p = rng.random() * 100
    i = max(1, bisect.bisect_left([q for q, _ in points], p))
    (p0, v0), (p1, v1) = points[i - 1], points[i]
    return v0 * (v1 / v0) ** ((p - p0) / (p1 - p0))


def layout(files: int, rng: random.Random) -> list[tuple[str, int]]:
    """Every folder (``""``: the root) with its number of files, parents before children."""
    scale = files / LINUX_FILES
    in_root = max(1, round(FILES_AT_DEPTH[0] * scale))  # its .gitignore at least
    at_depth = [in_root, *apportion(files - in_root, FILES_AT_DEPTH[1:])]
    deepest = max(d for d, n in enumerate(at_depth) if n)
    with_files = [f - e for f, e in zip(FOLDERS_AT_DEPTH, EMPTY_AT_DEPTH, strict=True)]
    holding = [
        min(n, max(1, round(f * scale))) if n else 0
        for n, f in zip(at_depth, with_files, strict=True)
    ]
    empty = [0] * (deepest + 1)
    count = [*holding[: deepest + 1], 0]  # folders at each depth, with one past the deepest
    for d in range(deepest - 1, 0, -1):  # a folder without files holds folders
        empty[d] = min(round(EMPTY_AT_DEPTH[d] * scale), count[d + 1])
        empty[d] = max(empty[d], 0 if at_depth[d] else 1)
        count[d] += empty[d]
    folders: list[tuple[str, int]] = [("", at_depth[0])]
    level = folders[:]
    for d in range(1, deepest + 1):
        wanted = round(PARENTS_AT_DEPTH[d - 1] * scale)
        n_parents = max(1, empty[d - 1], min(wanted, count[d - 1], count[d]))
        bare = [f for f, n in level if n == 0]
        others = [f for f, n in level if n]
        chosen = bare + rng.sample(others, n_parents - len(bare))
        children = apportion(count[d], [draw(FAN_OUT, rng) for _ in chosen], 1)
        paths = [
            path
            for parent, k in zip(chosen, children, strict=True)
            for path in _child_names(parent, k, d, rng)
        ]
        rng.shuffle(paths)
        weights = [draw(FILES_PER_FOLDER, rng) for _ in range(holding[d])]
        level = list(
            zip(paths, [*apportion(at_depth[d], weights, 1), *[0] * empty[d]], strict=True)
        )
        folders += level
    return folders


def _child_names(parent: str, k: int, depth: int, rng: random.Random) -> list[str]:
    pool = TOP_NAMES if depth == 1 else WORDS
    names = pool[:k] if depth == 1 else rng.sample(pool, min(k, len(pool)))
    names += [f"{rng.choice(pool)}{i}" for i in range(len(names), k)]
    return [f"{parent}/{name}".lstrip("/") for name in names]


def corpus(rng: random.Random) -> tuple[bytes, list[int]]:
    """C-like lines (twice over: a slice from any start fits), and where each starts."""
    word = lambda: rng.choice(IDENTS)  # noqa: E731
    ident = lambda: f"{word()}_{word()}"  # noqa: E731
    macro = lambda: "_".join(rng.choices(IDENTS, k=3)).upper()  # noqa: E731
    errors = ["EINVAL", "ENOMEM", "EBUSY", "EIO", "ENODEV", "ETIMEDOUT"]
    forms = [
        lambda: f"static int {ident()}_{word()}(struct {ident()} *{word()}, u32 {ident()})",
        lambda: f"\t{word()}->{ident()} = {ident()}({word()}->{ident()}, {macro()});",
        lambda: f"\tif ({word()}->{ident()} & {macro()}_MASK) {{",
        lambda: f'\t\tdev_err(&{word()}->dev, "cannot {word()} {word()}: %d\\n", ret);',
        lambda: f"\t\treturn -{rng.choice(errors)}; /* {word()} {word()} {word()} */",
        lambda: f"\t{word()}->{ident()} = readl({word()}->base + {macro()});",
        lambda: (
            f"#define {macro()}(x)\t(((x) >> {rng.randrange(32)}) & 0x{rng.randrange(256):02x})"
        ),
        lambda: " * " + " ".join(rng.choice(IDENTS + WORDS) for _ in range(rng.randrange(8, 14))),
        lambda: "\t}\n}\n",  # a function's end: short lines, one in 25 or so
    ]
    weights = [1] * (len(forms) - 1) + [0.1]
    lines, size = [], 0
    while size < CORPUS_BYTES:
        line = rng.choices(forms, weights)[0]() + "\n"
        lines.append(line)
        size += len(line)
    data = "".join(lines).encode()
    assert NEEDLE.encode() not in data
    return data * 2, [0, *(m.end() for m in re.finditer(b"\n", data))][:-1]


def text(size: int, data: bytes, starts: list[int], rng: random.Random, needle: bool) -> bytes:
    """``size`` bytes of the corpus from a line's start (round it, for a big file), ending
    in a newline, with NEEDLE's line after one of its lines if ``needle``."""
    if size == 0:
        return b""
    start = rng.choice(starts)
    if size <= len(data) // 2:  # data is the corpus twice
        chunk = data[start : start + size]
    else:
        chunk = (data[start:] + data * (size // len(data) + 1))[:size]
    if needle:
        call = f"\t\t.of_match_table = {NEEDLE}({rng.choice(IDENTS)}_dt_ids),\n".encode()
        cut = chunk.rfind(b"\n", 0, rng.randrange(size - len(call))) + 1
        chunk = chunk[:cut] + call + chunk[cut : size - len(call)]
    return chunk[:-1] + b"\n"


def sizes(files: int, rng: random.Random) -> list[int]:
    """Each file's size, the histogram's buckets apportioned; one file of 512 KiB to 1 MB
    (under surehand's read cap) at every size, in place of one of the commonest bucket."""
    buckets = list(SIZE_HISTOGRAM)
    counts = apportion(files, list(SIZE_HISTOGRAM.values()))
    big = buckets.index(19)
    if counts[big]:
        counts[big] -= 1
    else:
        counts[counts.index(max(counts))] -= 1
    out = [
        0 if bucket < 0 else rng.randrange(1 << bucket, 2 << bucket)
        for bucket, n in zip(buckets, counts, strict=True)
        for _ in range(n)
    ]
    out.append(rng.randrange(1 << 19, NEAR_1MB))
    rng.shuffle(out)
    return out


def names(folder: str, count: int, rng: random.Random) -> list[str]:
    """``count`` file names for ``folder``: its Makefile, Kconfig, .gitignore, then sources."""
    if not folder:
        return ROOT_NAMES[:count] + [f"{rng.choice(WORDS)}{i}.txt" for i in range(14, count)]
    chosen: list[str] = []
    for name, odds in (("Makefile", MAKEFILE), ("Kconfig", KCONFIG), (".gitignore", GITIGNORE)):
        if len(chosen) < count - 1 and rng.random() < odds:
            chosen.append(name)
    ext = rng.choices(list(EXTENSIONS), list(EXTENSIONS.values()), k=count - len(chosen))
    stems = [f"{rng.choice(IDENTS)}-{rng.choice(WORDS)}" for _ in ext]
    taken = set(chosen)
    for i, (stem, suffix) in enumerate(zip(stems, ext, strict=True)):
        name = f"{stem}{suffix}" if f"{stem}{suffix}" not in taken else f"{stem}{i}{suffix}"
        taken.add(name)
        chosen.append(name)
    return chosen


def generate(root: Path, files: int = 786, seed: int = 1) -> Tree:
    """Write and commit the tree at ``root`` (made if missing, empty)."""
    began, rng = time.perf_counter(), random.Random(seed)
    data, starts = corpus(rng)
    folders = layout(files, rng)
    all_sizes = sizes(files, rng)
    written = needles = ignored = 0
    forced: list[str] = []
    for folder, count in folders:
        (root / folder).mkdir(parents=True, exist_ok=True)
        for name in names(folder, count, rng):
            rel = f"{folder}/{name}".lstrip("/")
            size = all_sizes.pop()
            if name.startswith("."):  # committed past the rule ``.*``, as upstream's are
                forced.append(rel)
            if name in DOT_FILES:
                dot = DOT_FILES[name] if folder or name != ".gitignore" else GITIGNORE_RULES
                body = dot.encode()
            else:
                needle = NEEDLE_RANGE[0] <= size <= NEEDLE_RANGE[1] and rng.random() < NEEDLE_ODDS
                body = text(size, data, starts, rng, needle)
                needles += needle
            (root / rel).write_bytes(body)
            written += len(body)
            if name.endswith(".c") and rng.random() < 0.1:  # built: its object and command
                stem = name[:-2]
                (root / folder / f"{stem}.o").write_bytes(
                    b"\x7fELF\2\1\1" + bytes(min(size // 2, 1 << 16))
                )
                (root / folder / f".{stem}.o.cmd").write_text(f"cmd_{rel[:-2]}.o := gcc -c\n")
                ignored += 2
    generated = root / "include" / "generated"
    generated.mkdir(parents=True, exist_ok=True)
    for i in range(3 + files // 1000):
        (generated / f"autoconf{i}.h").write_bytes(text(2000, data, starts, rng, False))
        ignored += 1
    seconds = time.perf_counter() - began
    _commit(root, forced)
    return Tree(files, len(folders), written, needles, ignored, seconds)


def _commit(root: Path, forced: list[str]) -> None:
    def git(*args: str, stdin: bytes | None = None) -> None:
        subprocess.run(["git", *IDENTITY, *args], cwd=root, check=True, input=stdin)

    git("init", "-q")
    git("-c", "core.bigFileThreshold=1", "-c", "core.compression=1", "add", "-A")  # one pack
    dot_files = "\0".join(forced).encode()
    git("add", "-f", "--pathspec-from-file=-", "--pathspec-file-nul", stdin=dot_files)
    git("commit", "-q", "--no-gpg-sign", "-m", "linux-shaped tree")
    git("repack", "-a", "-d", "-q")  # packed, as a real repository's objects are


def main(argv: list[str] | None = None) -> int:
    cli = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    cli.add_argument("root", type=Path)
    cli.add_argument("--files", type=int, default=786)
    cli.add_argument("--seed", type=int, default=1)
    args = cli.parse_args(argv)
    began = time.perf_counter()
    tree = generate(args.root, args.files, args.seed)
    print(f"{tree} in {time.perf_counter() - began:.1f} s")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
