#!/usr/bin/env python3
"""The ad-hoc pandas analysis kinetoscope's rocprof_stats replaces: rocprof's stats.csv from a
rocprofv3 kernel_trace.csv (read_csv, groupby Kernel_Name, the five columns, sorted by total).

Usage: pandas_rocprof_stats.py KERNEL_TRACE.csv OUT.csv
"""
import csv
import sys

import pandas as pd

df = pd.read_csv(sys.argv[1], usecols=["Kernel_Name", "Start_Timestamp", "End_Timestamp"])
df["dur"] = df["End_Timestamp"] - df["Start_Timestamp"]
g = df.groupby("Kernel_Name")["dur"].agg(["count", "sum"]).reset_index()
total = g["sum"].sum()
g = g.sort_values(["sum", "Kernel_Name"], ascending=[False, True])
with open(sys.argv[2], "w", newline="") as f:
    w = csv.writer(f, quoting=csv.QUOTE_NONNUMERIC, lineterminator="\n")
    w.writerow(["Name", "Calls", "TotalDurationNs", "AverageNs", "Percentage"])
    for name, count, s in zip(g["Kernel_Name"], g["count"], g["sum"]):
        w.writerow([name, int(count), int(s), int(s) // int(count), 100.0 * int(s) / int(total)])
