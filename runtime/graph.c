/*
 * graph.c - CUDA graphs recorded from a stream's work and replayed.
 *
 * A graph keeps both the captured CUgraph and its executable instance: the
 * caller gets one object to launch and destroy. Like streams, it remembers
 * its context, which counts it, so the context outlives it.
 *
 * The graph entry points are optional in the driver table (drivers before
 * CUDA 11.4 lack cuGraphInstantiateWithFlags): each call checks that the
 * ones it needs were found. The host device has none.
 */
#include "runtime.h"

/* Whether the driver has the graph entry points; else the message. */
static pykrt_status need_graphs(const char *what)
{
    pykrt_status st = pk_driver_load();
    if (st != PYKRT_SUCCESS)
        return st;
    if (pk_on_host())
        return pk_fail(PYKRT_ERROR_NOT_SUPPORTED, "%s: the host device has no graphs (its launches run when they "
                                                  "are made, so a graph would save nothing)", what);
    if (!pk_drv.cuStreamBeginCapture || !pk_drv.cuStreamEndCapture || !pk_drv.cuStreamIsCapturing ||
        !pk_drv.cuGraphInstantiate || !pk_drv.cuGraphLaunch || !pk_drv.cuGraphExecDestroy || !pk_drv.cuGraphDestroy)
        return pk_fail(PYKRT_ERROR_NO_DRIVER, "%s: the driver lacks CUDA graphs (cuStreamBeginCapture_v2, "
                                              "cuGraphInstantiateWithFlags ...: CUDA 11.4 or newer)", what);
    return PYKRT_SUCCESS;
}

/* The driver's capture status of `stream`; a driver without graphs cannot
 * be capturing. The legacy default stream answers
 * CUDA_ERROR_STREAM_CAPTURE_IMPLICIT while a blocking stream captures:
 * waiting for it would be as illegal. */
static bool capturing(CUstream stream)
{
    if (!pk_drv.cuStreamIsCapturing)
        return false;
    CUstreamCaptureStatus status = CU_STREAM_CAPTURE_STATUS_NONE;
    CUresult res = pk_drv.cuStreamIsCapturing(stream, &status);
    return res == CUDA_ERROR_STREAM_CAPTURE_IMPLICIT || (res == CUDA_SUCCESS && status != CU_STREAM_CAPTURE_STATUS_NONE);
}

pykrt_status pk_refuse_capture(CUstream stream, const char *what, const char *kernel)
{
    if (!capturing(stream))
        return PYKRT_SUCCESS;
    return pk_fail(PYKRT_ERROR_BAD_LAUNCH, "%s(%s): the stream is capturing a graph, and a kernel compiled with "
                                           "debug=True waits for its stream after each launch to read its exception "
                                           "record, which a capture forbids; capture it compiled without debug=True",
                   what, kernel);
}

bool pk_stream_capturing(const pykrt_stream *stream)
{
    return capturing(stream ? stream->cu : NULL);
}

/* The checks of a call on a stream that must be a live one. */
static pykrt_status live_stream(const pykrt_stream *stream, const char *what)
{
    if (!stream)
        return pk_fail(PYKRT_ERROR_INVALID_ARGUMENT, "%s: stream is NULL (the default stream cannot be captured: "
                                                     "capture on a stream of pykrt_stream_create)", what);
    if (!pk_alive(stream, PK_STREAM))
        return pk_dead(what, PK_STREAM);
    pykrt_status st = need_graphs(what);
    return st != PYKRT_SUCCESS ? st : pk_enter(stream->ctx, what);
}

pykrt_status pykrt_graph_begin(pykrt_stream *stream, pykrt_capture_mode mode)
{
    pykrt_status st = live_stream(stream, "pykrt_graph_begin");
    if (st != PYKRT_SUCCESS)
        return st;
    static const CUstreamCaptureMode modes[] = {
        [PYKRT_CAPTURE_GLOBAL] = CU_STREAM_CAPTURE_MODE_GLOBAL,
        [PYKRT_CAPTURE_THREAD_LOCAL] = CU_STREAM_CAPTURE_MODE_THREAD_LOCAL,
        [PYKRT_CAPTURE_RELAXED] = CU_STREAM_CAPTURE_MODE_RELAXED,
    };
    if ((unsigned)mode >= sizeof modes / sizeof modes[0])
        return pk_fail(PYKRT_ERROR_INVALID_ARGUMENT, "pykrt_graph_begin: unknown capture mode %d", (int)mode);
    CUresult res = pk_drv.cuStreamBeginCapture(stream->cu, modes[mode]);
    return res ? pk_cuda_fail(res, "cuStreamBeginCapture", "pykrt_graph_begin") : PYKRT_SUCCESS;
}

/* A graph object for the captured `cu`, instantiated; frees `cu` on failure. */
static pykrt_status instantiate(pykrt_context *ctx, CUgraph cu, pykrt_graph **out)
{
    CUgraphExec exec = NULL;
    CUresult res = pk_drv.cuGraphInstantiate(&exec, cu, 0);
    if (res != CUDA_SUCCESS) {
        pk_drv.cuGraphDestroy(cu);
        return pk_cuda_fail(res, "cuGraphInstantiateWithFlags", "pykrt_graph_end");
    }
    pykrt_graph *g = pk_obj_new(PK_GRAPH);
    if (!g) {
        pk_drv.cuGraphExecDestroy(exec);
        pk_drv.cuGraphDestroy(cu);
        return pk_fail(PYKRT_ERROR_OUT_OF_MEMORY, "pykrt_graph_end: out of host memory");
    }
    g->ctx = ctx;
    g->cu = cu;
    g->exec = exec;
    pk_live_add(ctx, PK_LIVE_GRAPH);
    *out = g;
    return PYKRT_SUCCESS;
}

pykrt_status pykrt_graph_end(pykrt_stream *stream, pykrt_graph **out)
{
    if (!out)
        return pk_fail(PYKRT_ERROR_INVALID_ARGUMENT, "pykrt_graph_end: out is NULL");
    *out = NULL;
    pykrt_status st = live_stream(stream, "pykrt_graph_end");
    if (st != PYKRT_SUCCESS)
        return st;
    CUgraph cu = NULL;
    CUresult res = pk_drv.cuStreamEndCapture(stream->cu, &cu);
    if (res != CUDA_SUCCESS) {
        if (cu)
            pk_drv.cuGraphDestroy(cu);
        return pk_cuda_fail(res, "cuStreamEndCapture", "pykrt_graph_end");
    }
    if (!cu)
        return pk_fail(PYKRT_ERROR_CUDA, "pykrt_graph_end: the capture recorded no graph");
    return instantiate(stream->ctx, cu, out);
}

pykrt_status pykrt_graph_launch(pykrt_graph *graph, pykrt_stream *stream)
{
    if (!graph)
        return pk_fail(PYKRT_ERROR_INVALID_ARGUMENT, "pykrt_graph_launch: graph is NULL");
    if (!pk_alive(graph, PK_GRAPH))
        return pk_dead("pykrt_graph_launch", PK_GRAPH);
    if (stream && !pk_alive(stream, PK_STREAM))
        return pk_dead("pykrt_graph_launch", PK_STREAM);
    if (stream && stream->ctx != graph->ctx)
        return pk_fail(PYKRT_ERROR_INVALID_ARGUMENT, "pykrt_graph_launch: the stream belongs to another context "
                                                     "than the graph");
    pykrt_status st = pk_enter(graph->ctx, "pykrt_graph_launch");
    if (st != PYKRT_SUCCESS)
        return st;
    CUresult res = pk_drv.cuGraphLaunch(graph->exec, stream ? stream->cu : NULL);
    return res ? pk_cuda_fail(res, "cuGraphLaunch", "pykrt_graph_launch") : PYKRT_SUCCESS;
}

pykrt_status pykrt_graph_destroy(pykrt_graph *graph)
{
    if (!graph)
        return PYKRT_SUCCESS;
    if (!pk_alive(graph, PK_GRAPH))
        return pk_dead("pykrt_graph_destroy", PK_GRAPH);
    pykrt_status st = pk_enter(graph->ctx, "pykrt_graph_destroy");
    CUresult res = CUDA_SUCCESS;
    if (st == PYKRT_SUCCESS) {
        res = pk_drv.cuGraphExecDestroy(graph->exec);
        CUresult res2 = pk_drv.cuGraphDestroy(graph->cu);
        res = res ? res : res2;
    }
    pk_live_sub(graph->ctx, PK_LIVE_GRAPH);
    pk_obj_release(graph, PK_GRAPH);
    if (st != PYKRT_SUCCESS)
        return st;
    return res ? pk_cuda_fail(res, "cuGraphExecDestroy", "pykrt_graph_destroy") : PYKRT_SUCCESS;
}
