"""The types of dsgd._core, the compiled half of the package (python/bindings/dsgd_module.cpp).
Errors leave every function as python/dsgd/_errors.py's classes."""
from typing import Any, Callable, Optional, TypedDict, Union

ConfigValue = Union[bool, int, float, str, list[Any], dict[str, Any], None]
UpdateCallback = Callable[[int, int, float, float, float, float], None]
LogCallback = Callable[[str], None]
EvaluationCallback = Callable[[dict[str, float]], None]

torch_version: str


class RunOutcome(TypedDict):
    path: str
    error: Optional[BaseException]


class SweepOutcome(TypedDict):
    path: str
    skipped: int
    started: int
    ok: int
    stopped: int
    failed: int
    interrupted_by: int


class RunFolder(TypedDict):
    dir: str
    labels: list[tuple[str, str]]
    status: str
    summary: Optional[dict[str, Any]]
    columns: list[str]
    metrics: dict[str, list[float]]


def finish_mpi() -> None: ...
def run(config_path: str, keys: dict[str, ConfigValue], out: str, resume_dir: str,
        on_update: Optional[UpdateCallback] = ..., on_log: Optional[LogCallback] = ...,
        on_evaluation: Optional[EvaluationCallback] = ...) -> RunOutcome: ...
def sweep(spec: str, out: str, jobs: int, threads: int, executable: str) -> SweepOutcome: ...
def report(dirs: list[str], out: str, plots: bool, target: float, command: str,
           clusters: list[str] = ..., cluster_file: str = ..., device: str = ...) -> str: ...
def check_config(config_path: str, keys: dict[str, ConfigValue]) -> str: ...
def estimate(config_path: str, keys: dict[str, ConfigValue]) -> dict[str, Any]: ...
def read_run(folder: str) -> RunFolder: ...
def load_runs(dirs: list[str]) -> list[RunFolder]: ...
def normalize(images: Any, mean: list[float], std: list[float]) -> Any: ...
def available_memory_bytes() -> int: ...
def write_file_atomically(path: str, content: bytes) -> None: ...
def algorithms() -> list[tuple[str, str, str]]: ...
def models() -> list[tuple[str, str]]: ...
def datasets() -> list[tuple[str, str]]: ...
def keys() -> list[tuple[str, str, str, str, str, bool]]: ...
