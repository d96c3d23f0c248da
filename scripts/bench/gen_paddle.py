#!/usr/bin/env python3
"""Generate a large synthetic PaddlePaddle-profiler trace (LLM serving: prefill + decode).

Usage:
    gen_paddle.py [OUT] [TARGET_MB] [--seed N] [--layers N] [--prefill N] [--steps N] [--gzip]

OUT        default bench-out/paddle_<TARGET_MB>mb.paddle_trace.json (``.gz`` appended with --gzip)
TARGET_MB  approximate size in MB (1 MB = 10^6 bytes, uncompressed), default 531 -> ~1.6M events.

Format: what ``paddle.profiler.export_chrome_tracing`` writes in PaddlePaddle 3.x (schemaVersion
"1.0.2", compare ../shared/traces/paddle/paddle3.3.1_cpu_mlp_adam.paddle_trace.json and
chrometracing_logger.cc): an object with ``displayTimeUnit``, ``schemaVersion``, ``span_index``,
``traceEvents`` (one event per ~10 lines, names with a ``[1.234 ms]`` / ``[12.345 us]`` duration
suffix, integer ``ts`` in us, ``dur`` with 3 decimals, ``args.start_time``/``end_time`` strings
relative to the first event, string tids ``"<tid>(Python)"`` / ``"<tid>(C++)"``, a trailing ``{}``
event) and ``ExtraInfo``. Events are written in Paddle's order: breadth-first over the host
event tree (all ProfileStep events first, then every Operator, then OperatorInner /
DygraphKernelLaunch each followed by its CudaRuntime call, the ``launch`` flow start, the GPU
op and the flow end), then the metadata (``ph`` "M") events.

Content (deterministic for a given --seed): ``--prefill`` steps of 35-80 ms, then decode steps of
10-20 ms whose first GPU kernel is ``recover_decode_task``. Each step runs a ``--layers``-layer
transformer: per layer rms-norm, QKV gemm, attention, out-proj gemm, all-reduce, fused add+norm,
up/gate gemm, swiglu, down gemm, all-reduce; plus prologue/epilogue ops (memcpy HtoD, memset,
embedding, lm-head gemm, sampling, memcpy DtoH). Every GPU op is launched by an Operator
"<op> dygraph" > OperatorInner "<op> infer_meta" + DygraphKernelLaunch "<op> kernel launch" >
CudaRuntime cudaLaunchKernel / cudaMemcpyAsync / cudaMemsetAsync, linked by ``correlation id``
and a ``launch`` flow (ph s/f, id = correlation id). GPU ops are on pid 0 (device), tid 7 (stream).

Prints the number of events written (last line: ``events: N (...)``, N = length of the
traceEvents array including Paddle's trailing ``{}`` placeholder, i.e. N - 1 real events).
"""
import argparse
import gzip
import os
import random
import sys
import time

REPO = os.path.abspath(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))

PID = 13006
TID = 13006
DEVICE = 0
STREAM = 7
BASE_US = 1763884800000000  # 2025-11-23T08:00:00Z in us

# ---------------------------------------------------------------------------------------------
# GPU op catalogue: key -> (op name, kind, kernel name (decode), kernel name (prefill),
#                           relative GPU weight, grid, block, regs, smem)
# kind: K = kernel (cudaLaunchKernel), C = memcpy (cudaMemcpyAsync), S = memset (cudaMemsetAsync)
GEMM = ("sm90_xmma_gemm_bf16bf16_bf16f32_f32_tn_n_tilesize64x128x64_warpgroupsize1x1x1_"
        "execute_segment_k_off_kernel__5x_cublas")
GEMM_PF = ("sm90_xmma_gemm_bf16bf16_bf16f32_f32_tn_n_tilesize128x256x64_warpgroupsize2x1x1_"
           "execute_segment_k_off_kernel__5x_cublas")
OPS = {
    "recover": ("recover_decode_task", "K", "recover_decode_task", None, 0.3,
                (1, 1, 1), (512, 1, 1), 32, 0),
    "h2d": ("memcpy_h2d", "C", "MEMCPY_HtoD", "MEMCPY_HtoD", 0.4, None, None, 0, 0),
    "memset": ("full", "S", "MEMSET", "MEMSET", 0.2, None, None, 0, 0),
    "embed": ("embedding", "K",
              "void phi::EmbeddingFW<phi::dtype::bfloat16, long, 128, 8>(phi::dtype::bfloat16*, "
              "phi::dtype::bfloat16 const*, long const*, long, long, long, long)",
              "void phi::EmbeddingFW<phi::dtype::bfloat16, long, 128, 8>(phi::dtype::bfloat16*, "
              "phi::dtype::bfloat16 const*, long const*, long, long, long, long)",
              0.5, (64, 1, 1), (128, 8, 1), 24, 0),
    "blockshape": ("get_block_shape_and_split_kv_block", "K",
                   "void split_q_block<16>(int const*, int const*, int*, int*, int*, int, int, int)",
                   "void split_q_block<64>(int const*, int const*, int*, int*, int*, int, int, int)",
                   0.2, (1, 1, 1), (32, 1, 1), 20, 0),
    "rmsnorm": ("rms_norm", "K",
                "void phi::fusion::RmsNormBlockSMemImpl<phi::dtype::bfloat16, float, 8, 1024>"
                "(phi::dtype::bfloat16 const*, phi::dtype::bfloat16 const*, "
                "phi::dtype::bfloat16*, float*, float, int, int)",
                "void phi::fusion::RmsNormBlockSMemImpl<phi::dtype::bfloat16, float, 8, 1024>"
                "(phi::dtype::bfloat16 const*, phi::dtype::bfloat16 const*, "
                "phi::dtype::bfloat16*, float*, float, int, int)",
                0.6, (16, 1, 1), (1024, 1, 1), 40, 4096),
    "qkv": ("matmul", "K", GEMM, GEMM_PF, 3.0, (48, 1, 1), (384, 1, 1), 168, 230400),
    "attn": ("append_attention", "K",
             "void multi_query_append_attention_warp1_4_kernel<__nv_bfloat16, false, 16, 1, 128, "
             "16, 4, 16, 64, __nv_bfloat16>",
             "void multi_query_append_attention_kernel<__nv_bfloat16, true, 64, 4, 128, 32, 4, "
             "16, 64, __nv_bfloat16>",
             4.0, (8, 16, 1), (32, 4, 1), 128, 49152),
    "oproj": ("matmul", "K", GEMM, GEMM_PF, 2.0, (32, 1, 1), (384, 1, 1), 168, 230400),
    "allreduce": ("all_reduce", "K",
                  "void paddle::custom_allreduce::cross_device_reduce_1stage<__nv_bfloat16, 8>",
                  "ncclDevKernel_AllReduce_Sum_bf16_RING_LL(ncclDevComm*, unsigned long, "
                  "ncclWork*)",
                  1.5, (36, 1, 1), (512, 1, 1), 64, 0),
    "addnorm": ("fused_add_rms_norm", "K",
                "void phi::fusion::FusedAddRmsNormKernel<phi::dtype::bfloat16, float, 8>"
                "(phi::dtype::bfloat16 const*, phi::dtype::bfloat16*, "
                "phi::dtype::bfloat16 const*, phi::dtype::bfloat16*, float, int, int)",
                "void phi::fusion::FusedAddRmsNormKernel<phi::dtype::bfloat16, float, 8>"
                "(phi::dtype::bfloat16 const*, phi::dtype::bfloat16*, "
                "phi::dtype::bfloat16 const*, phi::dtype::bfloat16*, float, int, int)",
                0.7, (16, 1, 1), (1024, 1, 1), 40, 4096),
    "upgate": ("matmul", "K", GEMM, GEMM_PF, 5.0, (96, 1, 1), (384, 1, 1), 168, 230400),
    "swiglu": ("swiglu", "K",
               "void phi::funcs::VectorizedElementwiseKernel<phi::dtype::bfloat16, "
               "phi::SwiGLUFunctor<phi::dtype::bfloat16>, 2, 1, 8>",
               "void phi::funcs::VectorizedElementwiseKernel<phi::dtype::bfloat16, "
               "phi::SwiGLUFunctor<phi::dtype::bfloat16>, 2, 1, 8>",
               0.8, (132, 1, 1), (256, 1, 1), 26, 0),
    "down": ("matmul", "K", GEMM, GEMM_PF, 2.7, (48, 1, 1), (384, 1, 1), 168, 230400),
    "lmhead": ("matmul", "K",
               "ampere_bf16_s16816gemm_bf16_128x128_ldg8_f2f_stages_64x3_tn",
               "ampere_bf16_s16816gemm_bf16_128x128_ldg8_f2f_stages_64x3_tn",
               6.0, (1184, 1, 1), (256, 1, 1), 232, 98304),
    "softmax": ("softmax", "K",
                "void phi::KeMatrixSoftmaxForward<phi::dtype::bfloat16, float, 4, 8>"
                "(phi::dtype::bfloat16*, phi::dtype::bfloat16 const*, int)",
                "void phi::KeMatrixSoftmaxForward<phi::dtype::bfloat16, float, 4, 8>"
                "(phi::dtype::bfloat16*, phi::dtype::bfloat16 const*, int)",
                0.8, (16, 1, 1), (256, 1, 1), 32, 0),
    "topp": ("top_p_sampling", "K",
             "void air_topp_sampling::air_topp_sampling<phi::dtype::bfloat16, int, long, 11, "
             "512>(air_topp_sampling::Counter<phi::dtype::bfloat16>*, "
             "air_topp_sampling::HisT*, int*, phi::dtype::bfloat16*, long*, int, int, int, "
             "float const*, unsigned long)",
             "void air_topp_sampling::air_topp_sampling<phi::dtype::bfloat16, int, long, 11, "
             "512>(air_topp_sampling::Counter<phi::dtype::bfloat16>*, "
             "air_topp_sampling::HisT*, int*, phi::dtype::bfloat16*, long*, int, int, int, "
             "float const*, unsigned long)",
             1.2, (16, 4, 1), (512, 1, 1), 64, 16384),
    "update": ("update_inputs", "K",
               "void update_inputs_kernel<1024>(bool*, int*, int*, int*, int*, long*, long*, "
               "bool const*, int, int, int, int)",
               "void update_inputs_kernel<1024>(bool*, int*, int*, int*, int*, long*, long*, "
               "bool const*, int, int, int, int)",
               0.3, (1, 1, 1), (1024, 1, 1), 30, 0),
    "d2h": ("memcpy_d2h", "C", "MEMCPY_DtoH", "MEMCPY_DtoH", 0.3, None, None, 0, 0),
}
LAYER = ["rmsnorm", "qkv", "attn", "oproj", "allreduce", "addnorm", "upgate", "swiglu", "down",
         "allreduce"]
PROLOGUE_DECODE = ["recover", "h2d", "memset", "embed", "blockshape"]
PROLOGUE_PREFILL = ["h2d", "memset", "embed", "blockshape"]
EPILOGUE = ["rmsnorm", "lmhead", "softmax", "topp", "update", "d2h"]

SHAPES = {
    "matmul": '{"x": [[%d, 4096]], "y": [[4096, %d]]}',
    "rms_norm": '{"x": [[%d, 4096]], "norm_weight": [[4096]]}',
    "fused_add_rms_norm": '{"x": [[%d, 4096]], "residual": [[%d, 4096]]}',
    "append_attention": '{"qkv": [[%d, 6144]], "key_cache": [[2048, 8, 64, 128]]}',
    "all_reduce": '{"x": [[%d, 4096]]}',
    "swiglu": '{"x": [[%d, 24576]]}',
    "embedding": '{"ids": [[%d]], "weight": [[151936, 4096]]}',
}
DTYPES = {
    "matmul": '{"x": ["bfloat16"], "y": ["bfloat16"]}',
    "rms_norm": '{"x": ["bfloat16"], "norm_weight": ["bfloat16"]}',
    "fused_add_rms_norm": '{"x": ["bfloat16"], "residual": ["bfloat16"]}',
    "append_attention": '{"qkv": ["bfloat16"], "key_cache": ["bfloat16"]}',
    "all_reduce": '{"x": ["bfloat16"]}',
    "swiglu": '{"x": ["bfloat16"]}',
    "embedding": '{"ids": ["int64"], "weight": ["bfloat16"]}',
}

# ---------------------------------------------------------------------------------------------
# event templates (byte layout of PaddlePaddle 3.x chrometracing_logger)
T_HOST = ('\n  {\n    "name": "%s[%s]", "pid": %d, "tid": "%d(%s)",\n'
          '    "ts": %d, "dur": %.3f,\n    "ph": "X", "cat": "%s",\n'
          '    "cname": "thread_state_runnable",\n    "args": {\n'
          '      "start_time": "%.3f us",\n      "end_time": "%.3f us"\n    }\n  },\n  ')
T_OPERATOR = ('\n  {\n    "name": "%s[%s]", "pid": %d, "tid": "%d(C++)",\n'
              '    "ts": %d, "dur": %.3f,\n    "ph": "X", "cat": "Operator",\n'
              '    "cname": "thread_state_runnable",\n    "args": {\n'
              '      "start_time": "%.3f us",\n      "end_time": "%.3f us",\n'
              '      "input_shapes": %s,\n      "input_dtypes": %s,\n'
              '      "callstack": ""\n    }\n  },\n  ')
T_RUNTIME = ('\n  {\n    "name": "%s[%s]", "pid": %d, "tid": "%d(C++)",\n'
             '    "ts": %d, "dur": %.3f,\n    "ph": "X", "cat": "CudaRuntime",\n'
             '    "cname": "thread_state_running",\n    "args": {\n'
             '      "correlation id": %d,\n'
             '      "start_time": "%.3f us",\n      "end_time": "%.3f us"\n    }\n  },\n  ')
T_FLOW_S = ('\n  {\n    "name": "launch", "id": %d, "pid": %d, "tid": "%d(C++)",\n'
            '    "ts": %d,\n    "ph": "s", "cat": "async"\n  },\n  ')
T_FLOW_F = ('\n  {\n    "name": "launch", "id": %d, "pid": %d, "tid": %d,\n'
            '    "ts": %d,\n    "ph": "f", "cat": "async", "bp": "e"\n  },\n  ')
T_KERNEL = ('\n  {\n    "name": "%s[%s]", "pid": %d, "tid": %d,\n'
            '    "ts": %d, "dur": %.3f,\n    "ph": "X", "cat": "Kernel",\n'
            '    "cname": "cq_build_failed",\n    "args": {\n'
            '      "start_time": "%.3f us",\n      "end_time": "%.3f us",\n'
            '      "device": %d, "context": %d,\n      "stream": %d, "correlation id": %d,\n'
            '      "registers per thread": %d,\n      "shared memory": %d,\n'
            '      "blocks per SM": %f,\n      "warps per SM": %f,\n'
            '      "grid": [%d, %d, %d],\n      "block": [%d, %d, %d],\n'
            '      "theoretical achieved occupancy %%": %.3f\n    }\n  },\n  ')
T_MEMCPY = ('\n  {\n    "name": "%s[%s]", "pid": %d, "tid": %d,\n'
            '    "ts": %d, "dur": %.3f,\n    "ph": "X", "cat": "Memcpy",\n'
            '    "cname": "cq_build_failed",\n    "args": {\n'
            '      "start_time": "%.3f us",\n      "end_time": "%.3f us",\n'
            '      "stream": %d, "correlation id": %d,\n'
            '      "bytes": %d, "memory bandwidth (GB/s)": %.3f\n    }\n  },\n  ')
T_MEMSET = ('\n  {\n    "name": "%s[%s]", "pid": %d, "tid": %d,\n'
            '    "ts": %d, "dur": %.3f,\n    "ph": "X", "cat": "Memset",\n'
            '    "cname": "cq_build_failed",\n    "args": {\n'
            '      "start_time": "%.3f us",\n      "end_time": "%.3f us",\n'
            '      "device": %d, "context": %d,\n      "stream": %d, "correlation id": %d,\n'
            '      "bytes": %d, "value": %d\n    }\n  },\n  ')

HEADER = ('\n  {\n    "displayTimeUnit": "ms",\n    "schemaVersion": "1.0.2",\n'
          '    "span_index": "0",\n    "traceEvents": [\n  ')


def meta_block():
    cpu = ('\n  {{\n    "name": "process_name", "pid": {p}, "tid": "{t}(Python)",\n    "ph": "M",\n'
           '    "args": {{\n      "name": "Process {p} (CPU)"\n    }}\n  }},\n'
           '  {{\n    "name": "process_name", "pid": {p}, "tid": "{t}(C++)",\n    "ph": "M",\n'
           '    "args": {{\n      "name": "Process {p} (CPU)"\n    }}\n  }},\n'
           '   {{\n    "name": "thread_name", "pid": {p}, "tid": "{t}(Python)",\n    "ph": "M",\n'
           '    "args": {{\n      "name": "thread {t}:MainThread(Python)"\n    }}\n  }},\n'
           '  {{\n    "name": "thread_name", "pid": {p}, "tid": "{t}(C++)",\n    "ph": "M",\n'
           '    "args": {{\n      "name": "thread {t}:MainThread(C++)"\n    }}\n  }},\n'
           '  {{\n    "name": "process_sort_index", "pid": {p}, "tid": {t},\n    "ph": "M",\n'
           '    "args": {{\n      "sort_index": {p}\n    }}\n  }},\n'
           '  {{\n    "name": "thread_sort_index", "pid": {p}, "tid": "{t}(Python)",\n'
           '    "ph": "M",\n    "args": {{\n      "sort_index": {t2}\n    }}\n  }},\n'
           '  {{\n    "name": "thread_sort_index", "pid": {p}, "tid": "{t}(C++)",\n'
           '    "ph": "M",\n    "args": {{\n      "sort_index": {t21}\n    }}\n  }},\n  ')
    cpu = cpu.format(p=PID, t=TID, t2=TID * 2, t21=TID * 2 + 1)
    gpu = ('\n  {{\n    "name": "process_name", "pid": {d}, "tid": {s},\n    "ph": "M",\n'
           '    "args": {{\n      "name": "Deivce {d} (GPU)"\n    }}\n  }},\n'
           '   {{\n    "name": "thread_name", "pid": {d}, "tid": {s},\n    "ph": "M",\n'
           '    "args": {{\n      "name": "stream {s}"\n    }}\n  }},\n'
           '  {{\n    "name": "process_sort_index", "pid": {d}, "tid": {s},\n    "ph": "M",\n'
           '    "args": {{\n      "sort_index": {ds}\n    }}\n  }},\n'
           '  {{\n    "name": "thread_sort_index", "pid": {d}, "tid": {s},\n    "ph": "M",\n'
           '    "args": {{\n      "sort_index": {s}\n    }}\n  }},\n  ').format(
        d=DEVICE, s=STREAM, ds=DEVICE + 0x10000000)
    return cpu + gpu, 11


TAIL = ('\n  {}\n  ],\n  \n  "ExtraInfo": {\n     "%d": "MainThread",\n   \n'
        '     "Process Cpu Utilization": "0.912000",\n   \n'
        '     "System Cpu Utilization": "0.478000"\n   \n  }\n  }\n  ') % TID


def dur_display(dur_ns):
    ms = dur_ns / 1e6
    if ms > 1.0:
        return "%.3f ms" % ms
    return "%.3f us" % (ms * 1000.0)


# ---------------------------------------------------------------------------------------------
class Step:
    """All events of one ProfileStep, as plain tuples (times in ns, absolute)."""
    __slots__ = ("index", "start", "end", "prefill", "ops", "first_corr", "next_corr")


def gen_step(seed, index, start_ns, corr, prefill, layers):
    rng = random.Random(seed * 1000003 + index)
    plan = (PROLOGUE_PREFILL if prefill else PROLOGUE_DECODE) + LAYER * layers + EPILOGUE
    n = len(plan)
    target = rng.uniform(40e6, 75e6) if prefill else rng.uniform(11.5e6, 18.0e6)
    tokens = rng.randint(900, 3000) if prefill else rng.randint(8, 64)
    weights = [OPS[k][4] * rng.uniform(0.85, 1.15) for k in plan]
    gpu_scale = target * 0.90 / sum(weights)
    cpu_per_op = target * 0.84 / n

    st = Step()
    st.index = index
    st.prefill = prefill
    st.start = start_ns
    st.first_corr = corr
    ops = []
    c = start_ns + rng.randint(15000, 40000)
    gpu = c
    for i, key in enumerate(plan):
        opname, kind, kname, kname_pf, _, grid, block, regs, smem = OPS[key]
        if prefill and kname_pf is not None:
            kname = kname_pf
        op_start = c
        im_start = op_start + rng.randint(1500, 4000)
        im_dur = rng.randint(400, 2500)
        kl_start = im_start + im_dur + rng.randint(300, 1200)
        rt_start = kl_start + rng.randint(900, 2600)
        rt_dur = rng.randint(2400, 6500)
        lat = rng.randint(2500, 8000)
        g_start = max(rt_start + lat, gpu + rng.randint(600, 2200))
        g_dur = max(900, int(weights[i] * gpu_scale))
        if kind == "C" and key == "d2h":
            # synchronous copy of the sampled tokens: the runtime call waits for the GPU
            rt_name = "cudaMemcpy"
            rt_dur = max(rt_dur, g_start + g_dur - rt_start + rng.randint(1500, 4000))
        elif kind == "C":
            rt_name = "cudaMemcpyAsync"
        elif kind == "S":
            rt_name = "cudaMemsetAsync"
        else:
            rt_name = "cudaLaunchKernel"
        kl_end = rt_start + rt_dur + rng.randint(800, 2000)
        op_end = kl_end + rng.randint(1000, 3500)
        gpu = g_start + g_dur
        if kind == "K":
            extra = (grid, block, regs, smem, rng.randint(2, 8))
        elif kind == "C":
            nbytes = tokens * 8 if key == "h2d" else tokens * 4 * 8
            extra = (nbytes,)
        else:
            extra = (tokens * 4 * 16, 0)
        ops.append((opname, kind, kname, rt_name, corr, op_start, op_end, im_start, im_dur,
                    kl_start, kl_end, rt_start, rt_dur, g_start, g_dur, extra, tokens))
        corr += 1
        used = op_end - op_start
        c = op_end + max(500, int((cpu_per_op - used) * rng.uniform(0.5, 1.5)))
    st.ops = ops
    st.end = max(c, gpu) + rng.randint(8000, 30000)
    st.next_corr = corr
    return st


def iter_steps(seed, n_steps, n_prefill, layers, first_step):
    t = BASE_US * 1000 + random.Random(seed).randint(0, 999999) * 1000
    corr = 1000 + random.Random(seed + 1).randint(0, 9999)
    for i in range(n_steps):
        st = gen_step(seed, i, t, corr, i < n_prefill, layers)
        st.index = first_step + i
        yield st
        gap = random.Random(seed * 7919 + i).randint(300000, 2500000)  # 0.3-2.5 ms between steps
        t = st.end + gap
        corr = st.next_corr + random.Random(seed * 31 + i).randint(0, 3)


def fmt_level(st, level, t0):
    """Format the events of one step that sit at tree depth ``level`` (1, 2 or 3)."""
    out = []
    ap = out.append
    if level == 1:
        d = st.end - st.start
        ap(T_HOST % ("ProfileStep#%d" % st.index, dur_display(d), PID, TID, "Python",
                     st.start // 1000, d / 1000.0, "ProfileStep",
                     (st.start - t0) / 1000.0, (st.end - t0) / 1000.0))
        return out
    for (opname, kind, kname, rt_name, corr, op_start, op_end, im_start, im_dur, kl_start,
         kl_end, rt_start, rt_dur, g_start, g_dur, extra, tokens) in st.ops:
        if level == 2:
            d = op_end - op_start
            shp = SHAPES.get(opname)
            if shp is None:
                shapes, dtypes = "{}", "{}"
            else:
                shapes = shp % ((tokens,) * shp.count("%d"))
                dtypes = DTYPES[opname]
            ap(T_OPERATOR % (opname + " dygraph", dur_display(d), PID, TID, op_start // 1000,
                             d / 1000.0, (op_start - t0) / 1000.0, (op_end - t0) / 1000.0,
                             shapes, dtypes))
            continue
        # level 3: infer_meta, kernel launch (+ runtime, flow s, device op, flow f)
        ap(T_HOST % (opname + " infer_meta", dur_display(im_dur), PID, TID, "C++",
                     im_start // 1000, im_dur / 1000.0, "OperatorInner",
                     (im_start - t0) / 1000.0, (im_start + im_dur - t0) / 1000.0))
        d = kl_end - kl_start
        ap(T_HOST % (opname + " kernel launch", dur_display(d), PID, TID, "C++",
                     kl_start // 1000, d / 1000.0, "DygraphKernelLaunch",
                     (kl_start - t0) / 1000.0, (kl_end - t0) / 1000.0))
        rt_end = rt_start + rt_dur
        ap(T_RUNTIME % (rt_name, dur_display(rt_dur), PID, TID, rt_start // 1000,
                        rt_dur / 1000.0, corr, (rt_start - t0) / 1000.0, (rt_end - t0) / 1000.0))
        ap(T_FLOW_S % (corr, PID, TID, ((rt_start + rt_end) >> 1) // 1000))
        g_end = g_start + g_dur
        gs, ge = (g_start - t0) / 1000.0, (g_end - t0) / 1000.0
        if kind == "K":
            grid, block, regs, smem, ctx = extra
            nblocks = grid[0] * grid[1] * grid[2]
            bps = nblocks / 132.0
            wps = bps * (block[0] * block[1] * block[2]) / 32.0
            occ = min(100.0, wps / 64.0 * 100.0)
            ap(T_KERNEL % (kname, dur_display(g_dur), DEVICE, STREAM, g_start // 1000,
                           g_dur / 1000.0, gs, ge, DEVICE, 1, STREAM, corr, regs, smem, bps,
                           wps, grid[0], grid[1], grid[2], block[0], block[1], block[2], occ))
        elif kind == "C":
            nbytes = extra[0]
            ap(T_MEMCPY % (kname, dur_display(g_dur), DEVICE, STREAM, g_start // 1000,
                           g_dur / 1000.0, gs, ge, STREAM, corr, nbytes, nbytes / g_dur))
        else:
            nbytes, value = extra
            ap(T_MEMSET % (kname, dur_display(g_dur), DEVICE, STREAM, g_start // 1000,
                           g_dur / 1000.0, gs, ge, DEVICE, 1, STREAM, corr, nbytes, value))
        if g_dur // 1000 == 0:
            ap(T_FLOW_F.replace(', "bp": "e"', "") % (corr, DEVICE, STREAM, g_start // 1000))
        else:
            ap(T_FLOW_F % (corr, DEVICE, STREAM, ((g_start + g_end) >> 1) // 1000))
    return out


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("out", nargs="?", default=None)
    ap.add_argument("target_mb", nargs="?", type=float, default=531.0)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--layers", type=int, default=28)
    ap.add_argument("--prefill", type=int, default=3, help="number of prefill steps (>30 ms)")
    ap.add_argument("--steps", type=int, default=None, help="total steps (overrides TARGET_MB)")
    ap.add_argument("--first-step", type=int, default=1)
    ap.add_argument("--gzip", action="store_true")
    ap.add_argument("--level", type=int, default=6, help="gzip level")
    a = ap.parse_args(argv)

    out = a.out or os.path.join(REPO, "bench-out", "paddle_%gmb.paddle_trace.json" % a.target_mb)
    if a.gzip and not out.endswith(".gz"):
        out += ".gz"
    t_start = time.time()
    meta, n_meta = meta_block()

    # walk the steps (cheap: no formatting) and size every 20th one exactly, to stop at the step
    # count whose total is closest to the target (numbers grow longer as the trace advances)
    if a.steps is None:
        budget = a.target_mb * 1e6 - len(HEADER) - len(meta) - len(TAIL)
        total = 0.0
        n_steps = 0
        size = None
        t0 = None
        for st in iter_steps(a.seed, 10 ** 9, a.prefill, a.layers, a.first_step):
            if t0 is None:
                t0 = st.start
            i = n_steps
            if i < a.prefill or i == a.prefill or (i - a.prefill) % 20 == 0:
                size = sum(len(x) for lv in (1, 2, 3) for x in fmt_level(st, lv, t0))
            if i >= a.prefill and total + size / 2.0 > budget:
                break
            total += size
            n_steps += 1
    else:
        n_steps = a.steps
    if n_steps <= a.prefill:
        n_steps = a.prefill + 1
    print("steps: %d (%d prefill + %d decode), %d layers, seed %d"
          % (n_steps, a.prefill, n_steps - a.prefill, a.layers, a.seed))
    sys.stdout.flush()

    d = os.path.dirname(out)
    if d:
        os.makedirs(d, exist_ok=True)
    tmp = out + ".part"
    raw = open(tmp, "wb")
    fh = gzip.GzipFile(filename="", mode="wb", fileobj=raw, compresslevel=a.level, mtime=0) \
        if a.gzip else raw
    nbytes = 0
    events = 0

    def emit(parts):
        nonlocal nbytes
        b = "".join(parts).encode("ascii")
        nbytes += len(b)
        fh.write(b)

    emit([HEADER])
    t0 = None
    stats = None
    for level in (1, 2, 3):
        buf = []
        n_dec = n_pf = 0
        dmin = dmax = None
        for st in iter_steps(a.seed, n_steps, a.prefill, a.layers, a.first_step):
            if t0 is None:
                t0 = st.start
            if level == 1:
                dd = (st.end - st.start) / 1e6
                if st.prefill:
                    n_pf += 1
                else:
                    n_dec += 1
                    dmin = dd if dmin is None else min(dmin, dd)
                    dmax = dd if dmax is None else max(dmax, dd)
            evs = fmt_level(st, level, t0)
            events += len(evs)
            buf.extend(evs)
            if len(buf) >= 20000:
                emit(buf)
                buf = []
        emit(buf)
        if level == 1:
            stats = (n_pf, n_dec, dmin, dmax)
        print("  level %d done: %d events, %.1f MB, %.1fs"
              % (level, events, nbytes / 1e6, time.time() - t_start))
        sys.stdout.flush()
    emit([meta, TAIL])
    events += n_meta + 1  # metadata events + trailing {}
    fh.close()
    if fh is not raw:
        raw.close()
    os.replace(tmp, out)
    n_pf, n_dec, dmin, dmax = stats
    print("decode steps: %d, duration %.3f..%.3f ms; prefill steps: %d"
          % (n_dec, dmin or 0, dmax or 0, n_pf))
    print("wrote %s: %.1f MB on disk (%.1f MB uncompressed) in %.1fs"
          % (out, os.path.getsize(out) / 1e6, nbytes / 1e6, time.time() - t_start))
    print("events: %d (traceEvents entries, incl. the trailing {}; %d real events)"
          % (events, events - 1))


if __name__ == "__main__":
    main()
