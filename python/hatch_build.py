"""Ships the texts both implementations print (scripts/lib/text) in the Python package.

They live once, in the repository's scripts/lib/text. Built from the tree,
the sdist carries them as src/datarim_snapshot/text and the wheel as
datarim_snapshot/text. Built from the sdist (as `python -m build` builds
the wheel), the repository is not there, and the package directory already
holds them. An editable install reads them from the repository (texts.py).
"""

from __future__ import annotations

import os
from typing import Any

from hatchling.builders.hooks.plugin.interface import BuildHookInterface

PACKAGE_TEXTS = {"sdist": "src/datarim_snapshot/text", "wheel": "datarim_snapshot/text"}


class TextsHook(BuildHookInterface):  # type: ignore[type-arg]
    PLUGIN_NAME = "custom"

    def initialize(self, version: str, build_data: dict[str, Any]) -> None:
        if version == "editable" or self.target_name not in PACKAGE_TEXTS:
            return
        texts = os.path.normpath(os.path.join(self.root, "..", "scripts", "lib", "text"))
        if os.path.isdir(texts):
            build_data["force_include"][texts] = PACKAGE_TEXTS[self.target_name]
        elif not os.path.isdir(os.path.join(self.root, "src", "datarim_snapshot", "text")):
            raise FileNotFoundError(f"the datarim texts are neither in {texts} nor in the package")
