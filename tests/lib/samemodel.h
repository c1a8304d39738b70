/* Two finished models compared field by field and array by array (cmocka asserts): a
 * snapshot's against the parse, files read at once against files read in turn. Include
 * after <cmocka.h>. */
#ifndef OVTRACE_TEST_SAMEMODEL_H
#define OVTRACE_TEST_SAMEMODEL_H
#include <stddef.h>
#include <stdint.h>

#include "ovtrace/model/strtab.h"
#include "ovtrace/model/trace.h"

static inline void assert_str_or_null(const char *a, const char *b) {
    if (!a || !b) assert_ptr_equal(a, b);
    else assert_string_equal(a, b);
}

/* Everything the model holds, compared field by field and array by array. */
static inline void assert_same_model(const Trace *a, const Trace *b) {
    assert_null(b->build);
    assert_int_equal(a->n_events, b->n_events);
    assert_int_equal(a->n_lanes, b->n_lanes);
    assert_int_equal(a->n_rows, b->n_rows);
    assert_int_equal(a->n_groups, b->n_groups);
    assert_int_equal(a->n_flows, b->n_flows);
    assert_int_equal(a->n_sources, b->n_sources);
    assert_memory_equal(a->events, b->events, a->n_events * sizeof *a->events);
    assert_memory_equal(a->rows, b->rows, a->n_rows * sizeof *a->rows);
    assert_memory_equal(a->flows, b->flows, a->n_flows * sizeof *a->flows);
    assert_memory_equal(a->flow_by_to, b->flow_by_to, a->n_flows * sizeof *a->flow_by_to);
    for (size_t i = 0; i < a->n_lanes; i++) { /* field by field: struct padding is no part of the model */
        const Lane *x = &a->lanes[i], *y = &b->lanes[i];
        assert_int_equal(x->gpu, y->gpu);
        assert_int_equal(x->rank, y->rank);
        assert_int_equal(x->source, y->source);
        assert_int_equal(x->pid, y->pid);
        assert_int_equal(x->tid, y->tid);
        assert_int_equal(x->device, y->device);
        assert_int_equal(x->stream, y->stream);
        assert_int_equal(x->name, y->name);
        assert_int_equal(x->sort_index, y->sort_index);
        assert_int_equal(x->group, y->group);
        assert_int_equal(x->first, y->first);
        assert_int_equal(x->count, y->count);
        assert_int_equal(x->first_row, y->first_row);
        assert_int_equal(x->n_rows, y->n_rows);
    }
    for (size_t i = 0; i < a->n_groups; i++) {
        const Group *x = &a->groups[i], *y = &b->groups[i];
        assert_int_equal(x->gpu, y->gpu);
        assert_int_equal(x->rank, y->rank);
        assert_int_equal(x->source, y->source);
        assert_int_equal(x->id, y->id);
        assert_int_equal(x->name, y->name);
        assert_int_equal(x->label, y->label);
        assert_int_equal(x->sort_index, y->sort_index);
        assert_int_equal(x->first_lane, y->first_lane);
        assert_int_equal(x->n_lanes, y->n_lanes);
    }
    for (size_t i = 0; i < a->n_sources; i++) {
        const TraceSource *x = &a->sources[i], *y = &b->sources[i];
        assert_string_equal(x->path, y->path);
        assert_int_equal(x->rank, y->rank);
        assert_int_equal(x->world_size, y->world_size);
        assert_int_equal(x->compression, y->compression);
        assert_str_or_null(x->display_time_unit, y->display_time_unit);
        assert_str_or_null(x->trace_name, y->trace_name);
        assert_str_or_null(x->meta_json, y->meta_json);
        assert_int_equal(x->base_time_ns, y->base_time_ns);
    }
    size_t ns = StrTab_count(a->strings);
    assert_int_equal(ns, StrTab_count(b->strings));
    for (uint32_t i = 0; i < ns; i++) {
        size_t l = StrTab_len(a->strings, i);
        assert_int_equal(l, StrTab_len(b->strings, i));
        assert_memory_equal(StrTab_get(a->strings, i), StrTab_get(b->strings, i), l + 1);
        /* the rebuilt hash table finds every string under its id */
        assert_int_equal(StrTab_intern(b->strings, StrTab_get(a->strings, i), l), i);
    }
    assert_int_equal(StrTab_count(b->strings), ns); /* nothing was added by the lookups */
    assert_int_equal(a->t_min, b->t_min);
    assert_int_equal(a->t_max, b->t_max);
    assert_int_equal(a->simulated, b->simulated);
    const TraceDiag *x = &a->diag, *y = &b->diag;
    assert_int_equal(x->skipped, y->skipped);
    assert_int_equal(x->ignored, y->ignored);
    assert_int_equal(x->parallel_slices, y->parallel_slices);
    assert_int_equal(x->first_skip_offset, y->first_skip_offset);
    assert_str_or_null(x->first_skip_path, y->first_skip_path);
    assert_string_equal(x->first_skip_reason, y->first_skip_reason);
    assert_int_equal(x->truncated, y->truncated);
    assert_str_or_null(x->truncated_path, y->truncated_path);
    assert_int_equal(x->truncated_offset, y->truncated_offset);
}

#endif
