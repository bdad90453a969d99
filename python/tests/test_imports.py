"""The local code of a policy file (pwa_replay.imports): every module it imports from its folder
or the base folder, transitively, whatever the spelling of the import, and nothing of the standard
library or of installed packages; the digests of series follow an edit of any of them."""

import hashlib
import json
import subprocess
import sys
from pathlib import Path

import pwa_replay as pr
from pwa_replay.imports import code_digest, local_modules
from pwa_replay.series import OrderSeries, PolicySeries, external_digest

POLICY = (
    "class P:\n"
    "    def schedule(self, state):\n"
    "        for job in state.queue:\n"
    "            if not state.start(job):\n"
    "                return\n"
)


def _tree(root: Path, files: dict) -> Path:
    """Writes ``files`` (relative path → text) under ``root``."""
    for name, text in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    return root


def _names(root: Path, policy: str = "policy.py") -> list:
    """The local modules of ``root/policy`` (base ``root``), relative to ``root``."""
    found = local_modules(root / policy, root)
    return [p.relative_to(root.resolve()).as_posix() for p in found]


def test_a_plain_import_and_a_from_import_of_modules_beside_the_file(tmp_path):
    _tree(tmp_path, {
        "policy.py": "import helpers\nfrom rules import decide\n",
        "helpers.py": "X = 1\n",
        "rules.py": "def decide(): pass\n",
        "unrelated.py": "Y = 2\n",
    })
    assert _names(tmp_path) == ["helpers.py", "rules.py"]


def test_a_package_its_submodules_and_its_own_relative_imports(tmp_path):
    _tree(tmp_path, {
        "policy.py": "import pkg.sub\nfrom pkg import other, CONSTANT\nfrom pkg.deep.leaf import f\n",
        "pkg/__init__.py": "CONSTANT = 1\n",
        "pkg/sub.py": "from . import shared\n",
        "pkg/shared.py": "from .deep import leaf\n",
        "pkg/other.py": "",
        "pkg/unused.py": "",
        "pkg/deep/__init__.py": "",
        "pkg/deep/leaf.py": "from ..other import thing\n",
    })
    assert _names(tmp_path) == [
        "pkg/__init__.py", "pkg/deep/__init__.py", "pkg/deep/leaf.py", "pkg/other.py",
        "pkg/shared.py", "pkg/sub.py",
    ]


def test_a_relative_import_in_the_policy_file_is_from_its_folder(tmp_path):
    _tree(tmp_path, {
        "policies/policy.py": "from . import helpers\nfrom .ns.mod import g\n",
        "policies/helpers.py": "",
        "policies/ns/mod.py": "",  # a namespace package: no __init__.py
    })
    assert _names(tmp_path, "policies/policy.py") == ["policies/helpers.py", "policies/ns/mod.py"]


def test_the_standard_library_and_installed_packages_are_not_followed(tmp_path):
    _tree(tmp_path, {
        "policy.py": "import json, os.path\nimport numpy as np\nfrom collections import deque\n"
                     "import not_installed_anywhere\n",
    })
    assert _names(tmp_path) == []


def test_imports_anywhere_in_the_file_count_and_a_cycle_ends(tmp_path):
    _tree(tmp_path, {
        "policy.py": "def f():\n    import a\ntry:\n    import b\nexcept ImportError:\n    pass\n",
        "a.py": "import b\n",
        "b.py": "import a\nimport policy\n",  # a cycle, back to the policy file too
    })
    assert _names(tmp_path) == ["a.py", "b.py"]


def test_the_policy_folder_comes_before_the_base_folder(tmp_path):
    _tree(tmp_path, {
        "policies/policy.py": "import helpers\nimport common\n",
        "policies/helpers.py": "",
        "helpers.py": "",  # shadowed by the one beside the policy
        "common.py": "",
    })
    assert _names(tmp_path, "policies/policy.py") == ["common.py", "policies/helpers.py"]


def test_a_file_that_does_not_parse_is_covered_not_followed(tmp_path):
    _tree(tmp_path, {"policy.py": "import broken\n", "broken.py": "import helpers\ndef (:\n",
                     "helpers.py": ""})
    assert _names(tmp_path) == ["broken.py"]


def test_the_digest_follows_an_imported_module_and_only_it(tmp_path):
    _tree(tmp_path, {"policy.py": "from helpers import decide\n" + POLICY,
                     "helpers.py": "def decide(): return 1\n", "notes.py": ""})
    label = "py:policy.py:P"
    before = external_digest(label, str(tmp_path))
    (tmp_path / "notes.py").write_text("# unrelated\n")
    assert external_digest(label, str(tmp_path)) == before
    (tmp_path / "helpers.py").write_text("def decide(): return 2\n")
    after = external_digest(label, str(tmp_path))
    assert after != before
    # The series of the Python API follow it the same way.
    series = PolicySeries.parse(label, tmp_path)
    (tmp_path / "helpers.py").write_text("def decide(): return 3\n")
    assert PolicySeries.parse(label, tmp_path).digest != series.digest


def test_without_local_imports_the_digest_is_the_files_and_the_labels(tmp_path):
    _tree(tmp_path, {"policy.py": "import math\n" + POLICY})
    text = (tmp_path / "policy.py").read_bytes()
    assert external_digest("py:policy.py:P", str(tmp_path)) == hashlib.sha256(
        text + b"\0py:policy.py:P").hexdigest()


def test_a_priority_functions_digest_follows_its_helpers(tmp_path):
    _tree(tmp_path, {"prio.py": "from weights import W\ndef score(job):\n    return W * job.estimate\n",
                     "weights.py": "W = -1\n"})
    label = "easy:order=py:prio.py:score"
    before = OrderSeries.parse(label, tmp_path).digest
    (tmp_path / "weights.py").write_text("W = -2\n")
    assert OrderSeries.parse(label, tmp_path).digest != before


def test_a_policy_imports_its_helpers_beside_it_and_relatively(tmp_path):
    _tree(tmp_path, {
        "policies/fifo.py": "from helpers import start_all\nfrom . import rel\n"
                            "class Fifo:\n    def schedule(self, state):\n"
                            "        rel.check()\n        start_all(state)\n",
        "policies/helpers.py": "def start_all(state):\n    for job in state.queue:\n"
                               "        if not state.start(job):\n            return\n",
        "policies/rel.py": "def check():\n    pass\n",
    })
    fifo = tmp_path / "policies" / "fifo.py"
    df = pr.sweep("synth:uniform,mesh=8x8,jobs=50,rate=1", sched=["fcfs", f"py:{fifo}:Fifo"],
                  alloc=["ff"], loads=[1.0], threads=2)
    assert df.height == 2
    assert df.drop(["scheduler", "alloc_time_s", "sim_wall_s"])[0].equals(
        df.drop(["scheduler", "alloc_time_s", "sim_wall_s"])[1])


def test_the_worker_gives_the_digests_the_api_does(tmp_path):
    _tree(tmp_path, {"policies/p.py": "import helpers\n" + POLICY, "policies/helpers.py": ""})
    labels = ["py:policies/p.py:P", "easy:order=py:policies/p.py:P"]
    out = subprocess.run([sys.executable, "-m", "pwa_replay.worker", "--digest", *labels],
                         cwd=tmp_path, capture_output=True, check=True, text=True)
    assert json.loads(out.stdout) == {"digests": [external_digest(l, str(tmp_path)) for l in labels]}
    missing = subprocess.run([sys.executable, "-m", "pwa_replay.worker", "--digest", "py:no.py:P"],
                             cwd=tmp_path, capture_output=True, check=True, text=True)
    assert "no.py: no such file" in json.loads(missing.stdout)["error"]


def test_code_digest_names_modules_relative_to_the_base(tmp_path):
    one = _tree(tmp_path / "one", {"p.py": "import h\n", "h.py": "X = 1\n"})
    two = _tree(tmp_path / "two", {"p.py": "import h\n", "h.py": "X = 1\n"})
    assert code_digest(one / "p.py", one, b"") == code_digest(two / "p.py", two, b"")


def test_a_policy_importing_numpy_digests_without_importing_it(tmp_path):
    _tree(tmp_path, {"policy.py": "import numpy\n" + POLICY})
    code = ("import sys; from pathlib import Path; from pwa_replay.imports import local_modules; "
            "assert local_modules(Path('policy.py'), Path('.')) == []; "
            "assert 'numpy' not in sys.modules")
    subprocess.run([sys.executable, "-c", code], cwd=tmp_path, check=True)


def test_a_policy_objects_digest_follows_its_classs_code(tmp_path, monkeypatch):
    _tree(tmp_path, {"mypolicy.py": "from myhelpers import N\n" + POLICY,
                     "myhelpers.py": "N = 1\n"})
    monkeypatch.syspath_prepend(str(tmp_path))
    import mypolicy

    before = PolicySeries.of(mypolicy.P).digest
    assert PolicySeries.of(mypolicy.P).digest == before
    (tmp_path / "myhelpers.py").write_text("N = 2\n")
    assert PolicySeries.of(mypolicy.P).digest != before
