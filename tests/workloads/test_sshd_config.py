"""The login pods' sshd configuration, evaluated by the real OpenSSH server (``sshd -T``, Debian's openssh-server).

The Slinky operator (1.2.1) writes sshd_config as: ``Include /etc/ssh/sshd_config.d/*.conf``, its general lines,
then our ``extraSshdConfig`` (:data:`SSHD_SETTINGS`). The file is rebuilt here in that order, with a hostile drop-in
standing for whatever the login image carries, and sshd says what it would enforce for a connection.
"""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

from eks_training.workloads.slinky.settings import SSHD_SETTINGS

SSHD = shutil.which("sshd") or "/usr/sbin/sshd"
pytestmark = pytest.mark.skipif(not Path(SSHD).exists() or shutil.which("ssh-keygen") is None,
                                reason="the real sshd needs Debian's openssh-server (apt-get install openssh-server)")
#: What an image's drop-in could say (cloud images ship PasswordAuthentication yes in sshd_config.d).
HOSTILE_DROP_IN = "PermitRootLogin yes\nPasswordAuthentication yes\nKbdInteractiveAuthentication yes\n"


def _effective(tmp_path: Path, extra: str, user: str) -> dict[str, str]:
    drop_ins = tmp_path / "sshd_config.d"
    drop_ins.mkdir(exist_ok=True)
    (drop_ins / "50-image.conf").write_text(HOSTILE_DROP_IN)
    host_key = tmp_path / "host_key"
    if not host_key.exists():
        subprocess.run(["ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-f", str(host_key)], check=True)
    config = tmp_path / "sshd_config"
    config.write_text(f"#\n### GENERAL ###\nInclude {drop_ins}/*.conf\nUsePAM yes\nX11Forwarding yes\n"
                      f"Subsystem sftp internal-sftp\n#\n### EXTRA CONFIG ###\n{extra}")
    Path("/run/sshd").mkdir(parents=True, exist_ok=True)  # sshd -T checks its privilege separation folder
    done = subprocess.run([SSHD, "-T", "-f", str(config), "-h", str(host_key), "-C",
                           f"user={user},host=client.example,addr=10.8.0.5"], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    return dict(line.split(" ", 1) for line in done.stdout.splitlines() if " " in line)


@pytest.mark.parametrize("user", ["root", "alice"])
def test_no_root_no_password_only_directory_keys_whatever_the_image_carries(tmp_path: Path, user: str) -> None:
    effective = _effective(tmp_path, SSHD_SETTINGS, user)
    assert effective["permitrootlogin"] == "no"
    assert effective["passwordauthentication"] == "no"
    assert effective["kbdinteractiveauthentication"] == "no"
    assert effective["authenticationmethods"] == "publickey"
    assert effective["authorizedkeyscommand"] == "/usr/bin/sss_ssh_authorizedkeys %u"
    assert effective["authorizedkeyscommanduser"] == "nobody"


def test_global_lines_alone_would_lose_to_the_images_drop_in(tmp_path: Path) -> None:
    """Why the settings sit in a Match block: the same keywords as global lines come after the Include, and sshd
    keeps the first value of a global keyword."""
    global_only = "".join(line.strip() + "\n" for line in SSHD_SETTINGS.splitlines() if line.startswith(" "))
    effective = _effective(tmp_path, global_only, "root")
    assert (effective["permitrootlogin"], effective["passwordauthentication"]) == ("yes", "yes")
