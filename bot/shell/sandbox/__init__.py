"""The bubblewrap sandbox: whether a command runs in it and the run's status (``status``), the
root it sees (``root``), the credentials kept out of it (``credentials``), the git directories it
must not change (``git_dirs``), whether ``bwrap`` can run here (``probe``) and the proof that it
holds (``selftest``).
"""
