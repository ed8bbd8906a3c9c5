"""pytest configuration: every test here talks to the installed passlab kernelspec
(run.sh installs it into a temporary JUPYTER_PATH first)."""
import pytest
from jupyter_client.kernelspec import KernelSpecManager, NoSuchKernel

from helpers import KERNEL_NAME


def pytest_sessionstart(session):
    try:
        spec = KernelSpecManager().get_kernel_spec(KERNEL_NAME)
    except NoSuchKernel:
        pytest.exit(
            "the passlab kernelspec is not installed: run tests/jupyter/run.sh "
            "(it installs it into a temporary JUPYTER_PATH)",
            returncode=2,
        )
    print(f"passlab kernel: {spec.argv[0]}")
