"""The deploy check: would this synthesized platform run a job? Offline, from the synthesized app."""
