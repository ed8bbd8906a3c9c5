"""pytest configuration: the tests talk to installed kernelspecs (run.sh installs them into a
temporary JUPYTER_PATH first): the passlab kernel's, or with `run.sh --evcxr` evcxr's `rust`,
as PASSLAB_TEST_KERNELS says."""
import os

import pytest
from jupyter_client.kernelspec import KernelSpecManager, NoSuchKernel

from helpers import KERNEL_NAME


def pytest_sessionstart(session):
    for name in os.environ.get("PASSLAB_TEST_KERNELS", KERNEL_NAME).split(","):
        try:
            spec = KernelSpecManager().get_kernel_spec(name)
        except NoSuchKernel:
            pytest.exit(
                f"the {name} kernelspec is not installed: run tests/jupyter/run.sh "
                "(it installs it into a temporary JUPYTER_PATH)",
                returncode=2,
            )
        print(f"{name} kernel: {spec.argv[0]}")
