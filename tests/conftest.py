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

# Tests that take more than ~3 s on 2 cores with a warm kernel cache (every parameter of a test
# function counted together), by node id prefix (``file::test`` covers every parameter): marked
# ``slow`` here, in one place, so ``pytest -m "not slow"`` is the quick subset (the rules, the
# differential test at batch 1, the agents and the file formats; the end-to-end command runs, the
# notebooks, training and the browser are left to the full suite).  Chosen from
# ``pytest -m "not slow" --durations=250`` (docs/architecture.md, "The test suite").
SLOW_TESTS = (
    "tests/test_evaluate_leaderboard.py::test_evaluate_prints_a_line_per_table_and_defaults_to_the",
    "tests/test_evaluate.py::test_every_game_of_an_evaluate_table_replays_exactly",
    "tests/test_compiled_agent.py::test_the_example_plays_beside_builtin_policies_in_one_kernel",
    "tests/test_evaluate_ratings.py::test_ratings_csv_has_both_models_with_bootstrap_intervals",
    "tests/test_evaluate_ratings.py::test_alpharank_of_the_pool_and_of_the_pool_with_the_subject",
    "tests/test_evaluate_ratings.py::test_the_leaderboard_keeps_the_old_row_and_adds_the_new",
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
    "tests/qdv/test_counting_kernel.py::test_decisions_are_the_best_expected_values_on_played_games",
    "tests/veru/test_counting_kernel.py::test_the_fused_policy_decides_as_act_on_played_games",
    "tests/test_learn.py::test_bluffsim_train_tiny_config_writes_loadable_weights_and_resumes",
    "tests/test_learn.py::test_anneal_iterations_makes_a_run_the_prefix_of_a_longer_one",
    "tests/test_learn.py::test_bluffsim_train_keeps_a_copy_of_the_weights_file_it_replaces",
    "tests/test_fmath.py::test_machine_code_has_no_fused_multiply_add",
    "tests/test_pool_start.py::test_a_process_with_jax_uses_a_fork_server",
    "tests/test_abr.py::test_abr_ordering_agrees_with_cfr_nash_conv_on_qdv_small",
    "tests/test_abr.py::test_abr_against_random_wins_nearly_always_in_qdv_2p",
    "tests/test_plateau.py::test_a_small_plateau_run_from_the_command_line",
    "tests/test_plateau.py::test_on_the_qdv_small_preset_the_plateau_reaches_the_exact_best_response",
    "tests/test_progress.py::test_the_first_run_says_it_compiles_and_the_next_one_does_not",
    "tests/test_fused_choice.py::test_legal_listing_equals_the_mask",
    "tests/test_evaluate_leaderboard.py::test_a_restricted_evaluation_adds_its_own_row_and_keeps_the_wider_one",
    "tests/test_sweeps.py::test_the_docs_legumes_hand_size_table_is_what_its_command_gives",
    "tests/test_replay.py::test_the_html_viewer_steps_through_the_game_from_a_file",
    "tests/test_serve_browser.py::test_a_full_game_in_the_browser_shows_nothing_hidden",
    "tests/test_learn.py::test_best_responses_to_snapshots_join_the_mixture_and_resume_alike",
    "tests/test_evaluate.py::test_a_second_evaluation_replaces_its_row_unless_append",
    "tests/test_workflow.py::test_a_full_disk_during_the_merge_is_one_line_and_resume_finishes_it",
    "tests/test_tournament.py::test_results_do_not_depend_on_workers_or_executor",
    "tests/test_pools.py::test_the_example_pool_config_runs_from_the_cli_and_report_rebuilds_it",
    "tests/test_play.py::test_a_person_plays_a_full_game_without_seeing_face_down_cards",
    "tests/test_sweeps.py::test_a_sweep_writes_points_tables_and_plots_and_is_deterministic_across_workers",
    "tests/test_evaluate.py::test_the_custom_agent_is_evaluated_end_to_end",
    "tests/test_train_opponents.py::test_parameters_classes_of_your_own_and_weights_files_train",
    "tests/test_seating.py::test_bluffsim_run_warns_of_a_partial_cycle_before_playing_and_records_it",
    "tests/test_workflow.py::test_a_second_run_on_a_dir_in_use_is_refused_and_the_first_finishes",
    "tests/test_train_resume.py::test_a_missing_or_changed_best_response_stops_the_resume_before_it_writes",
    "tests/test_fused_veru.py::test_fused_run_experiment_equals_the_stepped_run",
    "tests/test_llm_run.py::test_max_calls_stops_cleanly_and_resume_goes_on_to_the_same_results",
    "tests/test_abr.py::test_exploit_a_class_of_your_own_from_the_working_directory",
    "tests/test_train_resume.py::test_a_damaged_checkpoint_is_one_line_naming_it_and_the_way_out",
    "tests/test_report_tables.py::test_every_results_dir_has_seats_lengths_bluff_and_h2h_cis",
    "tests/test_play_replays.py::test_a_tournament_game_replays_with_the_placements_recorded",
    "tests/test_workflow.py::test_report_on_a_damaged_results_dir_is_a_one_line_error",
    "tests/test_learn.py::test_a_nan_loss_stops_training_without_writing_nan_weights",
    "tests/test_agents.py::test_agent_returns_only_legal_actions",
    "tests/test_workflow.py::test_the_same_run_again_shows_its_results_and_force_replays_it",
    "tests/test_fourth_game_evaluate.py::test_evaluate_plays_the_tables_a_new_games_agents_can_play",
    "tests/test_play.py::test_watch_shows_every_hand_as_a_spectator",
    "tests/test_pools.py::test_sampled_lineups_are_seeded_and_independent_of_workers",
    "tests/test_learn.py::test_shipped_weights_load_and_play_legal_games",
    "tests/test_train_opponents.py::test_the_no_shipped_weights_error_suggests_forms_that_train",
    "tests/test_learn.py::test_token_shaping_sums_to_the_change_of_the_token_share",
    "tests/test_fourth_game.py::test_a_tournament_and_its_report_from_the_command_line",
    "tests/test_custom_agents.py::test_the_readme_example_agent_runs_end_to_end_from_the_cli",
    "tests/test_fused_agents.py::test_fused_run_experiment_equals_the_stepped_run",
    "tests/test_workflow.py::test_games_bad_input_is_a_one_line_error",
    "tests/test_tournament.py::test_resume_with_a_corrupt_config_json_says_it_is_corrupt",
    "tests/test_play.py::test_a_first_play_says_it_compiles_and_then_plays_the_same_game",
    "tests/test_evaluate_leaderboard.py::test_concurrent_leaderboard_writers_keep_every_row",
    "tests/test_workflow.py::test_ctrl_c_with_two_workers_prints_one_line_and_resume_finishes",
    "tests/test_evaluate_leaderboard.py::test_ctrl_c_with_two_workers_is_one_line_about_tables",
    "tests/test_workflow.py::test_out_pointing_at_a_file_is_a_one_line_error",
    "tests/test_workflow.py::test_quickstart_smoke_run_and_report_do_not_crash_on_a_winless_agent",
    "tests/test_tournament.py::test_cli_user_errors_are_one_line_and_exit_2",
    "tests/test_env_fused.py::test_fused_opponents_equal_stepped_opponents",
    "tests/test_serve_browser.py::test_the_checks_see_a_server_that_leaks",
    "tests/test_train_resume.py::test_a_checkpoint_without_the_record_needs_the_responses_its_settings_imply",
    "tests/test_text_protocol.py::test_the_context_key_covers_what_the_position_phrases_read",
    "tests/test_sweeps.py::test_report_rebuilds_a_sweep",
    # the largest veru tables of the differential test (5-8 s each; 3 players stays quick)
    "tests/test_conformance.py::test_reference_and_vectorised_agree[1-veru-6p",
    "tests/test_conformance.py::test_reference_and_vectorised_agree[1-veru-5p",
    # the module's 27 s evaluation (``two_runs``) is built for these
    "tests/test_evaluate_leaderboard.py::test_the_scorecard_has_a_table_per_opponent",
    "tests/test_evaluate_leaderboard.py::test_the_evaluation_measures_how_the_agent_bluffs_and_calls",
    # end-to-end command runs and training of 2.5-6 s each (2026-12-07: the quick subset had
    # grown to 145 s)
    "tests/test_conformance.py::test_reference_and_vectorised_agree[1-veru-4p",
    "tests/test_abr.py::test_cli_writes_the_record_and_reuses_it_and_refuses_other_settings",
    "tests/test_experiments.py::test_experiment_config_loads_and_plays[compiled_agent]",
    "tests/test_train_resume.py::test_a_checkpoint_of_another_network_or_without_its_log_is_refused",
    "tests/test_learn.py::test_numpy_inference_equals_the_jax_forward_pass",
    "tests/test_serve.py::test_bluffsim_serve_runs_until_ctrl_c_and_keeps_its_results",
    "tests/test_llm_run.py::test_a_cli_run_prints_the_estimate_and_cost_writes_no_key_and_reruns",
    "tests/test_workflow.py::test_the_advice_for_a_missing_parquet_works",
    "tests/test_sweeps.py::test_a_sweep_over_a_pool",
    "tests/test_sweeps.py::test_force_replaces_a_sweep_and_keeps_foreign_files",
    "tests/test_pools.py::test_combinations_play_every_subset_equally_in_every_rotation",
    "tests/test_play.py::test_a_custom_agent_takes_a_seat_with_its_parameters",
    "tests/test_play.py::test_a_text_agent_takes_a_seat",
    "tests/test_tournament.py::test_cli_run_prints_a_table_and_writes_results",
    "tests/test_conformance.py::test_reference_and_vectorised_agree[1-legumes-6p",
    "tests/test_conformance.py::test_reference_and_vectorised_agree[1-qdv-6p",
    "tests/test_evaluate_leaderboard.py::test_a_corrupt_leaderboard_is_one_line_before_anything_is",
    "tests/test_workflow.py::test_too_many_games_is_refused_with_the_cap_and_why",
    "tests/test_workflow.py::test_a_huge_run_shows_progress_at_once",
    "tests/test_workflow.py::test_bad_dask_address_is_a_one_line_error",
)


@pytest.fixture(autouse=True)
def close_figures():
    """Every figure a test left open is closed after it (a worker runs hundreds of tests: open
    figures would pile up, and matplotlib warns past 20)."""
    yield
    import matplotlib.pyplot as plt

    plt.close("all")


def pytest_collection_modifyitems(config, items) -> None:  # noqa: ANN001
    """Mark the tests of ``SLOW_TESTS`` ``slow``."""
    for item in items:
        if item.nodeid.startswith(SLOW_TESTS):
            item.add_marker(pytest.mark.slow)
