"""Framework-free engine: observations, run state, detectors, diagnoses, the monitor."""
