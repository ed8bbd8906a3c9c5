"""The jupyter_kernel_test suite against the passlab kernel: every test it offers, with
samples in the passlab language (none is skipped)."""
import tempfile
from pathlib import Path

import jupyter_kernel_test as jkt

from helpers import KERNEL_NAME

# A directory holding a file that is not a dump: DumpIR(refresh=true) keeps it and warns on
# standard error.
_WARN_DIR = Path(tempfile.mkdtemp(prefix="passlab-stderr-"))
(_WARN_DIR / "notes.txt").write_text("not a dump\n")

MODULE = 'parse("""def @main(%x: Tensor[(1, 4), float32]) { add(%x, 1f) }""")'


class PasslabKernelTests(jkt.KernelTests):
    kernel_name = KERNEL_NAME
    language_name = "passlab"
    file_extension = ".passlab"

    code_hello_world = 'print("hello, world")'
    code_stderr = (
        f"m = {MODULE}\n"
        f'with PassContext(instruments=[DumpIR("{_WARN_DIR}", refresh=true)]) {{\n'
        "  m2 = InferType()(m)\n"
        "}"
    )
    code_generate_error = "undefined_name"
    code_page_something = "?Sequential"
    code_clear_output = 'print("soon gone")\nclear_output()'

    completion_samples = [
        {"text": "Sequen", "matches": {"Sequential("}},
        {"text": "PassContext(opt", "matches": {"opt_level="}},
        {"text": "PrintBefore", "matches": {"PrintBeforeAll("}},
    ]
    complete_code_samples = [
        "x = 1",
        "show Sequential([InferType()])",
        'm = parse("""def @main() { 0f }""")',
        "with PassContext() { x = 1 }",
    ]
    incomplete_code_samples = [
        "with PassContext(opt_level=3) {",
        'm = parse("""def @main() {',
        "seq = Sequential([InferType(),",
    ]
    invalid_code_samples = ["x = )", "]", 'x = "unterminated']

    code_execute_result = [
        {"code": "6", "result": "6"},
        {"code": "[1, 2.5]", "result": "[1, 2.5]"},
        {"code": '"text"', "result": '"text"'},
        {"code": "PassContext(opt_level=3)", "mime": "text/html"},
        {"code": MODULE, "mime": "text/html"},
    ]
    code_history_pattern = "PassContext(opt_level=3*"
    supported_history_operations = ("tail", "range", "search")

    code_display_data = [
        {"code": "show Sequential([InferType()])", "mime": "text/plain"},
        {"code": f"show {MODULE}", "mime": "text/html"},
        {"code": "passes", "mime": "text/html"},
    ]

    code_inspect_sample = "Sequential"


class PasslabIopubWelcomeTests(jkt.IopubWelcomeTests):
    kernel_name = KERNEL_NAME
    support_iopub_welcome = True
