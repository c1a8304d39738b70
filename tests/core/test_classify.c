#include <sys/stat.h>

#include "testutil.h"
#include "ovtrace/model/classify.h"

static void default_rules(void **state) {
    (void)state;
    CommRules *r = CommRules_default();
    const char *comm[] = {
        "ncclKernel_AllReduce_RING_LL_Sum_float(ncclDevComm*, unsigned long, ncclWork*)",
        "ncclDevKernel_AllGather_RING_LL(ncclDevKernelArgsStorage<4096ul>)",
        "void ncclDevKernel_SendRecv(ncclDevKernelArgsStorage<4096ul>)",
        "rcclKernel_AllReduce",
        "void dpsk::ep::internode::dispatch<false, 8, true, 8>(int4*, float*, long*)",
        "void dpsk::ep::internode::combine<false, 8, __nv_bfloat16, 8, 2, 16, 24>(int4*)",
        "void dpsk::ep::internode::notify_dispatch<false, 8>(int const*)",
        "void dpsk::ep::internode::cached_notify<false>(int, int)",
        "void deep_ep::intranode::dispatch<8, 768, 8192>(int4*, float*)",
        "void deep_ep::internode_ll::dispatch<false, 3, 7168>(void*, float*)",
        "void deep_ep::internode_ll::combine<3, 7168, 9, 128>(void*, void*)",
        "void deep_ep::internode_ll::clean_low_latency_buffer<32>(int*, int)",
        "void deep_ep::intranode::notify_combine<8>(void**, int**)",
        /* NCCL send/recv kernels as __cxa_demangle prints CUPTI's names (no "void") */
        "ncclDevKernel_SendRecv(ncclDevKernelArgsStorage<4096ul>)",
        "ncclKernel_SendRecv_RING_SIMPLE_Sum_int8_t(ncclDevComm*, unsigned long, ncclWork*)",
        /* symmetric-memory and custom all-reduce, names as Kineto shows them */
        ("void c10d::symmetric_memory::multimem_all_reduce_kernel<__nv_bfloat16, 16>(__nv_bfloat16*, unsigned long, "
         "unsigned int**, unsigned long, unsigned long)"),
        "void c10d::symmetric_memory::multimem_one_shot_all_reduce_kernel<float, 16>(float*, float*, unsigned long)",
        "void c10d::symmetric_memory::multimem_all_gather_kernel<16>(char*, char*, unsigned long)",
        "void c10d::symmetric_memory::one_shot_all_reduce_kernel<__nv_bfloat16, 16, 8>(__nv_bfloat16**, unsigned long)",
        "void c10d::symmetric_memory::two_shot_all_reduce_kernel<__nv_bfloat16, 16, 8>(__nv_bfloat16**, unsigned long)",
        "two_shot_all_reduce_kernel_inplace",
        "one_shot_all_reduce_kernel", /* Triton SymmMem kernels have bare names */
        ("void vllm::cross_device_reduce_1stage<__nv_bfloat16, 8>(vllm::RankData*, vllm::RankSignals, vllm::Signal*, "
         "__nv_bfloat16*, int, int)"),
        "void vllm::cross_device_reduce_2stage<__nv_bfloat16, 8>(vllm::RankData*, vllm::RankSignals)",
        "void sglang::cross_device_reduce_1stage<half, 4>(sglang::RankData*)",
        "void tensorrt_llm::kernels::oneShotAllReduceKernel<__nv_bfloat16, 8, true, false>(AllReduceParams)",
        "void tensorrt_llm::kernels::twoShotAllReduceKernel<__nv_bfloat16, 8>(AllReduceParams)",
        ("void tensorrt_llm::kernels::ar_fusion::allreduce_fusion_kernel_oneshot_lamport<__nv_bfloat16, 8, true>("
         "AllReduceFusionParams<__nv_bfloat16>)"),
        "void flashinfer::trtllm_allreduce_fusion::allreduce_fusion_kernel_twoshot_sync<half, 4, true>(...)",
        "void tensorrt_llm::kernels::lamportAllReduceKernel<float>(float*)",
    };
    for (size_t i = 0; i < sizeof comm / sizeof comm[0]; i++)
        if (Classify_event(r, KIND_KERNEL, 0, comm[i], 7) != CLASS_COMM) fail_msg("not comm: %s", comm[i]);
    const char *compute[] = {
        "void dpsk::ep::cuda::get_dispatch_layout<256, 32, 8>(long const*, int*)",
        "void cutlass::device_kernel<dpsk::grouped_gemm::cuda::fp8_ptp128c::GemmKernel>(...)",
        "ampere_bf16_s16816gemm_bf16_128x128_ldg8_f2f_stages_32x5_tn",
        "void at::native::vectorized_elementwise_kernel<4, at::native::FillFunctor<float>>(int)",
        "my_dispatch_kernel",
        "combine_logits",
        /* ordinary reductions stay compute */
        ("void at::native::reduce_kernel<512, 1, at::native::ReduceOp<float, at::native::func_wrapper_t<float, "
         "at::native::sum_functor<float, float, float>>, unsigned int, float, 4>>(at::native::ReduceOp<float>)"),
        "reduce_kernel",
        "void cub::DeviceReduceKernel<cub::DeviceReducePolicy<float, int, cub::Sum>::Policy600, float*>(float*)",
        "void cub::DeviceReduceSingleTileKernel<cub::DeviceReducePolicy<float>::Policy600, float*>(float*)",
        "void cub::DeviceSegmentedReduceKernel<cub::DeviceReducePolicy<float>::Policy600>(float*)",
        "void at::native::(anonymous namespace)::cunn_SoftMaxForward<4, float>(float*, float const*, int)",
        "block_all_reduce_sum", /* a block-level reduction, not a collective */
        "void at::native::all_reduce_stub_kernel(float*)",
        "warp_allreduce_max",
        "one_shot_gemm", /* needs the collective after one_shot_ */
        "void multimem_copy_kernel(float*)", /* multimem_ without a collective */
    };
    for (size_t i = 0; i < sizeof compute / sizeof compute[0]; i++)
        if (Classify_event(r, KIND_KERNEL, 0, compute[i], 7) != CLASS_COMPUTE) fail_msg("not compute: %s", compute[i]);
    assert_int_equal(Classify_event(r, KIND_MEMCPY, EVF_MEMCPY_P2P, "Memcpy PtoP", 1), CLASS_COMM);
    assert_int_equal(Classify_event(r, KIND_MEMCPY, 0, "Memcpy HtoD", 1), CLASS_MEMORY);
    assert_int_equal(Classify_event(r, KIND_MEMSET, 0, "Memset", 1), CLASS_MEMORY);
    assert_int_equal(Classify_event(r, KIND_SYNC, 0, "Stream Sync", 1), CLASS_SYNC);
    assert_int_equal(Classify_event(r, KIND_RUNTIME, 0, "cudaLaunchKernel", 1), CLASS_CPU);
    assert_int_equal(Classify_event(r, KIND_ANNOTATION, 0, "ProfilerStep#1", 1), CLASS_ANNOTATION);
    assert_int_equal(Classify_event(r, KIND_OTHER, 0, "x", 1), CLASS_OTHER);
    CommRules_free(r);
}

static void user_rules(void **state) {
    (void)state;
    CommRules *r = CommRules_default();
    char err[256];
    assert_true(CommRules_addLine(r, "comm ^my_alltoall", err, sizeof err));
    assert_true(CommRules_addLine(r, "not-comm ncclKernel_Broadcast", err, sizeof err));
    assert_true(CommRules_addLine(r, "comm-stream ^(27|31)$", err, sizeof err));
    assert_true(CommRules_addLine(r, "  # a comment", err, sizeof err));
    assert_int_equal(Classify_event(r, KIND_KERNEL, 0, "my_alltoall_v", 7), CLASS_COMM);
    assert_int_equal(Classify_event(r, KIND_KERNEL, 0, "ncclKernel_Broadcast_RING", 7), CLASS_COMPUTE);
    assert_int_equal(Classify_event(r, KIND_KERNEL, 0, "gemm", 27), CLASS_COMM);
    assert_int_equal(Classify_event(r, KIND_KERNEL, 0, "gemm", 270), CLASS_COMPUTE);
    assert_false(CommRules_addLine(r, "comm (unclosed", err, sizeof err));
    assert_non_null(strstr(err, "bad regex"));
    assert_false(CommRules_addLine(r, "compute foo", err, sizeof err));
    assert_non_null(strstr(err, "expected"));
    CommRules_free(r);
}

static void rules_file_and_trace(void **state) {
    (void)state;
    const char *rules = "# team rules\ncomm-stream ^9$\nnot-comm get_dispatch\n";
    char *p = tu_write(rules, strlen(rules), ".rules");
    CommRules *r = CommRules_default();
    char err[256];
    assert_true(CommRules_loadFile(r, p, err, sizeof err));
    unlink(p);
    const char *bad = "comm ok\nfrobnicate\n";
    p = tu_write(bad, strlen(bad), ".rules");
    CommRules *r2 = CommRules_empty();
    assert_false(CommRules_loadFile(r2, p, err, sizeof err));
    assert_non_null(strstr(err, ":2:")); /* names the line */
    CommRules_free(r2);
    unlink(p);
    Trace *t = tu_load_ok("[{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"gemm\",\"pid\":0,\"tid\":9,\"ts\":1,\"dur\":1},"
                          "{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"gemm\",\"pid\":0,\"tid\":7,\"ts\":1,\"dur\":1}]");
    assert_int_equal(t->events[0].cls + t->events[1].cls, CLASS_COMPUTE + CLASS_COMPUTE);
    Classify_trace(t, r);
    for (size_t i = 0; i < t->n_events; i++)
        assert_int_equal(t->events[i].cls, t->lanes[t->events[i].lane].stream == 9 ? CLASS_COMM : CLASS_COMPUTE);
    Trace_free(t);
    CommRules_free(r);
}

/* Classify_traceThreads on chunks of a large trace (over the half million events where
 * threads start): every event gets Classify_event's class, on 1, 2 and 3 threads alike.
 * Kernels with comm and compute names, kernels on a comm stream, peer-to-peer and plain
 * copies, CPU ops, spread over all chunks so each chunk matches names of its own. */
static void threads_agree(void **state) {
    (void)state;
    CommRules *r = CommRules_default();
    char err[256];
    assert_true(CommRules_addLine(r, "comm-stream ^9$", err, sizeof err));
    assert_true(CommRules_addLine(r, "not-comm get_dispatch", err, sizeof err));
    static const char *names[] = {"gemm", "void deep_ep::intranode::dispatch<8, 768, 8192>(int4*, float*)",
                                  "ncclDevKernel_AllGather_RING_LL(ncclDevKernelArgsStorage<4096ul>)",
                                  "get_dispatch_layout", "flash_fwd", "aten::mm"};
    const size_t n_ev = 700000, n_names = sizeof names / sizeof names[0];
    Trace *tr[3];
    for (int k = 0; k < 3; k++) {
        Trace *t = Trace_new();
        uint32_t src = Trace_addSource(t, "threads_agree");
        uint32_t lanes[4] = {Trace_gpuLane(t, src, 0, 7, 0, 7), Trace_gpuLane(t, src, 0, 9, 0, 9),
                             Trace_gpuLane(t, src, 0, 27, 0, 27), Trace_cpuLane(t, src, 100, 1)};
        for (size_t i = 0; i < n_ev; i++) {
            /* the name's index changes every 7 events, the lane every 3: every pair meets */
            const char *nm = names[(i / 7) % n_names];
            uint32_t l = lanes[(i / 3) % 4];
            TraceEvent e = {0};
            e.ts = (int64_t)i * 10;
            e.dur = 5;
            e.lane = l;
            e.name = StrTab_intern(t->strings, nm, strlen(nm));
            e.kind = l == lanes[3] ? KIND_CPU_OP : i % 11 == 0 ? KIND_MEMCPY : KIND_KERNEL;
            if (e.kind == KIND_MEMCPY && i % 2) e.flags |= EVF_MEMCPY_P2P;
            Trace_append(t, &e);
        }
        Trace_finish(t);
        Classify_traceThreads(t, r, k + 1);
        tr[k] = t;
    }
    size_t comm = 0;
    for (size_t i = 0; i < n_ev; i++) {
        const TraceEvent *e = &tr[0]->events[i];
        EventClass want = Classify_event(r, (EventKind)e->kind, e->flags, Trace_name(tr[0], e),
                                         tr[0]->lanes[e->lane].stream);
        if (e->cls != want) fail_msg("event %zu (%s): class %d, want %d", i, Trace_name(tr[0], e), e->cls, want);
        for (int k = 1; k < 3; k++)
            if (tr[k]->events[i].cls != e->cls) fail_msg("event %zu: %d threads give class %d, one %d", i, k + 1,
                                                         tr[k]->events[i].cls, e->cls);
        comm += e->cls == CLASS_COMM;
    }
    assert_true(comm > n_ev / 4 && comm < n_ev * 3 / 4); /* both classes, plenty of each */
    for (int k = 0; k < 3; k++) Trace_free(tr[k]);
    CommRules_free(r);
}

/* A rules file that is not a regular text file is an error that says so, at once:
 * a directory (read as nothing before), /dev/zero (never ends), a FIFO (an open that
 * waits for a writer hung every command), also as the user's config file; a line over
 * the buffer is an error, not two rules. A missing user config is fine. */
static void rules_file_special(void **state) {
    (void)state;
    char dir[] = "/tmp/ovt-rules-XXXXXX";
    assert_non_null(mkdtemp(dir));
    char fifo[64], cfg[96], cfgdir[64];
    snprintf(fifo, sizeof fifo, "%s/fifo", dir);
    assert_int_equal(mkfifo(fifo, 0600), 0);
    const char *bad[] = {dir, "/dev/zero", fifo};
    char err[256];
    for (size_t i = 0; i < 3; i++) {
        CommRules *r = CommRules_empty();
        err[0] = '\0';
        assert_false(CommRules_loadFile(r, bad[i], err, sizeof err));
        assert_non_null(strstr(err, "not a regular file"));
        CommRules_free(r);
    }
    CommRules *r = CommRules_empty();
    assert_true(CommRules_loadUserConfig(r, NULL, dir, NULL, err, sizeof err)); /* no dir/ovtrace/rules */
    snprintf(cfgdir, sizeof cfgdir, "%s/ovtrace", dir);
    assert_int_equal(mkdir(cfgdir, 0700), 0);
    snprintf(cfg, sizeof cfg, "%s/rules", cfgdir);
    assert_int_equal(mkfifo(cfg, 0600), 0);
    assert_false(CommRules_loadUserConfig(r, NULL, dir, NULL, err, sizeof err));
    assert_non_null(strstr(err, "not a regular file"));
    unlink(cfg);
    char *longline = malloc(10000);
    memset(longline, 'x', 9999);
    memcpy(longline, "comm ", 5);
    longline[9999] = '\0';
    FILE *f = fopen(cfg, "w");
    fprintf(f, "%s\n", longline);
    fclose(f);
    assert_false(CommRules_loadUserConfig(r, NULL, dir, NULL, err, sizeof err));
    assert_non_null(strstr(err, ":1: line longer than"));
    free(longline);
    CommRules_free(r);
    unlink(cfg), rmdir(cfgdir), unlink(fifo), rmdir(dir);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(default_rules),
        cmocka_unit_test(user_rules),
        cmocka_unit_test(rules_file_and_trace),
        cmocka_unit_test(threads_agree),
        cmocka_unit_test(rules_file_special),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
