#!/usr/bin/python3
"""Writes toy-4d-input.npy (3 tokens x 4 dims, float32) with numpy itself, so the C++ reader is
checked against numpy's own writer. Run from this directory: /usr/bin/python3 make_toy_input.py

With toy-4d.json and --scale none, query 0 attends [0.06337894, 0.46831053, 0.46831053] and its
output is [1.93662106, 6.68310531, 1.59506841] (see tests/test_weight_files.cpp)."""
import numpy as np

x = np.array([[1, 0, 1, 0], [0, 2, 0, 2], [1, 1, 1, 1]], dtype=np.float32)
np.save("toy-4d-input.npy", x)
