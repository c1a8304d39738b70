/* Event objects for the loader's fast paths (stage 2, known shapes) to be held to the
 * member loop with: Kineto and simulator events, empty and repeated args, every kind of
 * number and literal, nested containers, escapes and control characters in keys and
 * values, and syntax errors. */
#ifndef OVTRACE_TEST_JSONCASES_H
#define OVTRACE_TEST_JSONCASES_H
#include <stdbool.h>

#define LONG_NAME \
    "void at::native::elementwise_kernel<128, 4, at::native::gpu_kernel_impl<at::native::BinaryFunctor<float>>>(int)"

/* An object and whether the loader's fast paths must take it: valid JSON, and no
 * escape or control character in a string they read themselves (keys, top-level and
 * args values; nested containers go to the reference scanner whole). */
typedef struct {
    const char *json;
    bool plain;
} JsonCase;

static const JsonCase json_cases[] = {
    {"{\n    \"ph\": \"X\", \"cat\": \"kernel\", \"name\": \"" LONG_NAME "\", \"pid\": 0, \"tid\": 7,\n"
    "    \"ts\": 1740461679471346.000, \"dur\": 52,\n    \"args\": {\n      \"External id\": 44479,\n"
    "      \"device\": 0, \"stream\": 7, \"correlation\": 44479, \"blocks per SM\": 31.030304,\n"
    "      \"grid\": [132, 1, 1], \"est. achieved occupancy %\": 0\n    }\n  }", true},
    {"{\"ph\": \"X\", \"cat\": \"kernel\", \"name\": \"moe::gate\", \"pid\": 0, \"tid\": 7, \"ts\": 3869.113, "
    "\"dur\": 36.748, \"args\": {\"device\": 0, \"stream\": 7, \"step\": 0, \"layer\": 0, \"mb\": 0}}", true},
    {"{}", true},
    {"{\"args\":{}}", true},
    {"{\"args\": {}, \"ts\": 5}", true},
    {"{\"args\":5,\"x\":null}", true},
    {"{\"ts\":1,\"ts\":2,\"args\":{\"a\":1,\"a\":\"b\"},\"args\":{\"device\":3}}", true},
    {"{\"a\":true,\"b\":false,\"c\":null,\"d\":-0,\"e\":0.5,\"f\":-12.25,\"g\":1e5,\"h\":1.5E-3,\"i\":-2e+9}", true},
    {"{\"args\":{\"Input Dims\":[[1,2,3],[4]],\"Input type\":[\"float\",\"\"],\"deep\":{\"a\":{\"b\":[1,{\"c\":2}]}}}}", true},
    {"{\"args\":{\"a\":[\"x\\\"y\",\"\\\\\"]},\"meta\":{\"k\":\"\\u00e9\"}}", true},
    {"{\"args\":{\"args\":{\"name\":\"inner\"}},\"name\":\"outer\"}", true},
    {"{\"args\":{\"args\":5},\"name\":\"outer\"}", true},
    {"{ \t\n\"name\"\r\n:\n\"spaced\"\t,\n\"ts\" : 7 \n}", true},
    {"{\"name\":\"\xc3\xa9\xe4\xb8\xad\xf0\x9f\x98\x80\",\"cat\":\"\"}", true},
    {"{\"n\\u0061me\":\"escaped key\"}", false},
    {"{\"name\":\"a\\\"b\"}", false},
    {"{\"name\":\"a\\\\\\\\\"}", false},
    {"{\"args\":{\"name\":\"x\\ny\"}}", false},
    {"{\"name\":\"raw\ttab\"}", false},
    {"{\"name\":\"raw\x01\"}", false},
    {"{\"ts\":5}", true},
    {"{\"ts\":-5.25}", true},
    {"{\"ts\":01}", false},
    {"{\"ts\":1.}", false},
    {"{\"ts\":.5}", false},
    {"{\"ts\":1x}", false},
    {"{\"ts\":1 2}", false},
    {"{\"ts\":1.5.5}", false},
    {"{\"ts\":-}", false},
    {"{\"a\":tru}", false},
    {"{\"a\" x:1}", false},
    {"{\"a\":1,}", false},
    {"{\"a\":1 \"b\":2}", false},
    {"{\"a\"1}", false},
    {"{,}", false},
    {"{\"a\":[1,]}", false},
    {"{\"a\":\"unterminated}", false},
    {"{\"a\":1\x0c}", false},
    {"{\"a\":\x1a}", false},
    {"{\"name\":\"x\",\"ts\":1}", true},
    {"{\"name\":\"x\",\"ts\":\"1\"}", true},
    {"{\"name\":\"x\",\"ts\":{\"a\":1}}", true},
    {"{\"name\":\"x\",\"ts\":[1]}", true},
    {"{\"name\":\"x\",\"ts\":true}", true},
    {"{\"name\":\"x\",\"args\":{\"a\":1}}", true},
    {"{\"name\":\"x\",\"args\":[1]}", true},
    {"{\"name\":\"x\",\"args\":\"s\"}", true},
};
enum { N_JSON_CASES = sizeof json_cases / sizeof *json_cases };

#endif
