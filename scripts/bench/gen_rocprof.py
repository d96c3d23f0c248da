#!/usr/bin/env python3
"""Writes a large rocprofv3 CSV run (one process) for benchmarks: OUT_DIR/<pid>_kernel_trace.csv,
<pid>_hip_api_trace.csv and <pid>_memory_copy_trace.csv, in ROCm 6.4's column layout, about MB
megabytes in all.

Usage: gen_rocprof.py OUT_DIR [MB]   (default 300)

Kernels cycle through 24 names (templated C++ names with commas, quoted as rocprofv3 quotes
them) on 2 GPUs (agents 2 and 3) and 4 queues, with durations of 2-400 us and gaps of 1-50 us;
each kernel has its hipLaunchKernel call (same Correlation_Id), and every 50th kernel is preceded
by a host-to-device copy (hipMemcpyAsync) and every 200th followed by a blocking device-to-host
copy (hipMemcpy). Prints `kernels: N` and the totals rocprof_stats must give for the first name
(a check for the benchmark).
"""
import os
import random
import sys

out = sys.argv[1]
mb = float(sys.argv[2]) if len(sys.argv) > 2 else 300.0
pid = 4242
os.makedirs(out, exist_ok=True)
rng = random.Random(7)
names = [
    f'"void kernel_{i}<float, {i % 4 + 1}>(float*, float const*, int, int)"' if i % 3 else f'"Cijk_Ailk_Bljk_SB_MT64x64x16_{i}"'
    for i in range(24)
]
kt = open(os.path.join(out, f"{pid}_kernel_trace.csv"), "w")
api = open(os.path.join(out, f"{pid}_hip_api_trace.csv"), "w")
cp = open(os.path.join(out, f"{pid}_memory_copy_trace.csv"), "w")
kt.write('"Kind","Agent_Id","Queue_Id","Stream_Id","Thread_Id","Dispatch_Id","Kernel_Id","Kernel_Name","Correlation_Id",'
         '"Start_Timestamp","End_Timestamp","LDS_Block_Size","Scratch_Size","VGPR_Count","Accum_VGPR_Count","SGPR_Count",'
         '"Workgroup_Size_X","Workgroup_Size_Y","Workgroup_Size_Z","Grid_Size_X","Grid_Size_Y","Grid_Size_Z"\n')
api.write('"Domain","Function","Process_Id","Thread_Id","Correlation_Id","Start_Timestamp","End_Timestamp"\n')
cp.write('"Kind","Direction","Stream_Id","Source_Agent_Id","Destination_Agent_Id","Correlation_Id","Start_Timestamp","End_Timestamp"\n')
limit = int(mb * 1e6)
t = 1_000_000_000_000  # GPU clock, ns
host = t - 5_000
corr = 0
n = 0
first_total = 0
first_calls = 0
while kt.tell() + api.tell() + cp.tell() < limit:
    for _ in range(1000):
        agent = 2 + (n % 2)
        if n % 50 == 0:
            corr += 1
            d = rng.randint(20_000, 200_000)
            api.write(f'"HIP_RUNTIME_API","hipMemcpyAsync",{pid},{pid},{corr},{host},{host + 4_000}\n')
            cp.write(f'"MEMORY_COPY","MEMORY_COPY_HOST_TO_DEVICE",1,"Agent 0","Agent {agent}",{corr},{t},{t + d}\n')
            t += d + rng.randint(1_000, 5_000)
        corr += 1
        k = n % len(names)
        d = rng.randint(2_000, 400_000)
        api.write(f'"HIP_RUNTIME_API","hipLaunchKernel",{pid},{pid},{corr},{host},{host + rng.randint(2_000, 9_000)}\n')
        kt.write(f'"KERNEL_DISPATCH","Agent {agent}",{1 + n % 4},{n % 4},{pid},{n + 1},{k + 1},{names[k]},{corr},{t},{t + d},'
                 f'0,0,32,0,16,256,1,1,{1 << (10 + k % 8)},1,1\n')
        if k == 0:
            first_total += d
            first_calls += 1
        t += d + rng.randint(1_000, 50_000)
        host += rng.randint(3_000, 12_000)
        if n % 200 == 199:
            corr += 1
            d = rng.randint(20_000, 100_000)
            api.write(f'"HIP_RUNTIME_API","hipMemcpy",{pid},{pid},{corr},{host},{t + d + 2_000}\n')
            cp.write(f'"MEMORY_COPY","MEMORY_COPY_DEVICE_TO_HOST",0,"Agent {agent}","Agent 0",{corr},{t},{t + d}\n')
            t += d + 3_000
            host = t + 5_000
        host = max(host, t - 2_000_000)
        n += 1
for f in (kt, api, cp):
    f.close()
print(f"kernels: {n}")
print(f"first name: {names[0]} calls {first_calls} total_ns {first_total}")
