"""The numbered SQL migrations (NNNN_name.sql), shipped as package data and applied at start."""
