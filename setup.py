"""The wheel carries the repository's top-level site folders inside the ``app`` package.

``templates/``, ``static/`` and ``migrations/`` stay at the top of the repository; a build
copies them to ``app/templates``, ``app/static`` and ``app/migrations``, where
``app.core.bundled`` finds them once installed. Everything else is in ``pyproject.toml``.
"""

from pathlib import Path
from shutil import copytree, ignore_patterns, rmtree

from setuptools import setup
from setuptools.command.build_py import build_py

BUNDLED = ("templates", "static", "migrations")


class BuildWithBundledFolders(build_py):
    def run(self) -> None:
        super().run()
        # An editable install reads the checkout's folders where they are.
        if not self.editable_mode:
            for name in BUNDLED:
                target = Path(self.build_lib) / "app" / name
                # A file deleted from the folder must not linger from an earlier build.
                rmtree(target, ignore_errors=True)
                copytree(name, target, ignore=ignore_patterns("__pycache__"))


setup(cmdclass={"build_py": BuildWithBundledFolders})
