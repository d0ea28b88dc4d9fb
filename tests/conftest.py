"""Shared test set-up: the worked-example game registered, a deterministic, bounded hypothesis
profile and the Agg backend."""

import os
from pathlib import Path

import matplotlib
import pytest
from hypothesis import HealthCheck, settings

matplotlib.use("Agg")

# The fourth game (tests/extra_games/liarsdice, docs/adding_a_game.md) joins through the public
# discovery: its directory in BLUFFSIM_GAMES_PATH, read by bluffsim.list_games() in this process,
# in every xdist worker (each imports this file) and in every child process (CLI calls, pools).
os.environ["BLUFFSIM_GAMES_PATH"] = os.pathsep.join(
    p for p in (os.environ.get("BLUFFSIM_GAMES_PATH", ""), str(Path(__file__).parent / "extra_games"))
    if p)
import bluffsim  # noqa: E402

bluffsim._game_ids.cache_clear()  # in case a plugin listed the games before this file ran

settings.register_profile(
    "ci",
    derandomize=True,
    deadline=None,
    max_examples=40,
    print_blob=True,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
settings.register_profile("thorough", deadline=None, max_examples=500)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "ci"))

# Tests that take more than ~10 s on 2 cores, by node id prefix (``file::test`` covers every
# parameter): marked ``slow`` here, in one place, so ``pytest -m "not slow"`` is the quick subset.
SLOW_TESTS = (
    "tests/test_compiled.py::test_a_batch_of_4096_agrees_with_the_reference",
    "tests/test_conformance.py::test_reference_and_vectorised_agree[257",
    "tests/test_sweeps.py::test_the_example_sweeps_run_end_to_end",
    "tests/test_sweeps.py::test_sweep_output_errors_are_one_line",
    "tests/test_sweeps.py::test_a_bad_sweep_is_a_one_line_cli_error_and_writes_nothing",
    "tests/test_sweeps.py::test_the_sweep_notebook_executes_and_shows_its_figures",
    "tests/test_tournament.py::test_the_notebook_executes_on_a_tiny_run_and_shows_its_figures",
    "tests/test_determinism.py::test_pinned_hashes",
    "tests/test_bench.py::test_chunked_prange_plays_the_same_games_as_the_serial_fused_loop",
    "tests/test_bench.py::test_bench_cores_two_reports_the_ratio_to_one_core",
    "tests/test_adapters.py::test_openspiel_random_sim_test_passes",
    "tests/qdv/test_counting_kernel.py::test_compiled_actions_equal_the_numpy_reference_on_played_games",
    "tests/veru/test_counting_kernel.py::test_compiled_actions_equal_the_numpy_reference_on_played_games",
    "tests/test_learn.py::test_bluffsim_train_tiny_config_writes_loadable_weights_and_resumes",
    "tests/test_learn.py::test_anneal_iterations_makes_a_run_the_prefix_of_a_longer_one",
    "tests/test_learn.py::test_bluffsim_train_keeps_a_copy_of_the_weights_file_it_replaces",
    "tests/test_fmath.py::test_machine_code_has_no_fused_multiply_add",
    "tests/test_pool_start.py::test_a_process_with_jax_uses_a_fork_server",
    "tests/test_abr.py::test_abr_ordering_agrees_with_cfr_nash_conv_on_qdv_small",
    "tests/test_abr.py::test_abr_against_random_wins_nearly_always_in_qdv_2p",
)


def pytest_collection_modifyitems(config, items) -> None:  # noqa: ANN001
    """Mark the tests of ``SLOW_TESTS`` ``slow``."""
    for item in items:
        if item.nodeid.startswith(SLOW_TESTS):
            item.add_marker(pytest.mark.slow)
