/*
 * stream.c - streams and events.
 *
 * Each object remembers its context, so calls on it bind that context on
 * whichever thread makes them, and launches and copies can refuse a stream
 * of another context with a clear message instead of a driver error. The
 * context counts them, and is not destroyed while one is alive; a
 * destroyed stream or event is an error wherever it is passed (handle.c).
 */
#include "runtime.h"

/* A stream object of ctx for the CUstream cu (borrowed: another's), counted
 * by the context, into *out. */
static pykrt_status adopt(pykrt_context *ctx, CUstream cu, bool borrowed, pykrt_stream **out, const char *what)
{
    pykrt_stream *s = pk_obj_new(PK_STREAM);
    if (!s)
        return pk_fail(PYKRT_ERROR_OUT_OF_MEMORY, "%s: out of host memory", what);
    s->cu = cu;
    s->borrowed = borrowed;
    s->ctx = ctx;
    pk_live_add(ctx, PK_LIVE_STREAM);
    *out = s;
    return PYKRT_SUCCESS;
}

pykrt_status pykrt_stream_create(pykrt_context *ctx, unsigned flags, pykrt_stream **out)
{
    if (!out)
        return pk_fail(PYKRT_ERROR_INVALID_ARGUMENT, "pykrt_stream_create: out is NULL");
    *out = NULL;
    if (flags & ~PYKRT_STREAM_NON_BLOCKING)
        return pk_fail(PYKRT_ERROR_INVALID_ARGUMENT, "pykrt_stream_create: unknown flags 0x%x", flags);
    pykrt_status st = pk_enter(ctx, "pykrt_stream_create");
    if (st != PYKRT_SUCCESS)
        return st;
    CUstream cu;
    CUresult res = pk_drv.cuStreamCreate(&cu, flags & PYKRT_STREAM_NON_BLOCKING ? CU_STREAM_NON_BLOCKING : 0);
    if (res != CUDA_SUCCESS)
        return pk_cuda_fail(res, "cuStreamCreate", "pykrt_stream_create");
    st = adopt(ctx, cu, false, out, "pykrt_stream_create");
    if (st != PYKRT_SUCCESS)
        pk_drv.cuStreamDestroy(cu);
    return st;
}

pykrt_status pykrt_stream_wrap(pykrt_context *ctx, void *custream, pykrt_stream **out)
{
    if (!out)
        return pk_fail(PYKRT_ERROR_INVALID_ARGUMENT, "pykrt_stream_wrap: out is NULL");
    *out = NULL;
    if (!custream)
        return pk_fail(PYKRT_ERROR_INVALID_ARGUMENT, "pykrt_stream_wrap: custream is NULL (the default stream "
                       "needs no wrapper: pass NULL where a stream is taken)");
    pykrt_status st = pk_enter(ctx, "pykrt_stream_wrap");
    return st != PYKRT_SUCCESS ? st : adopt(ctx, (CUstream)custream, true, out, "pykrt_stream_wrap");
}

pykrt_status pykrt_stream_destroy(pykrt_stream *stream)
{
    if (!stream)
        return PYKRT_SUCCESS;
    if (!pk_alive(stream, PK_STREAM))
        return pk_dead("pykrt_stream_destroy", PK_STREAM);
    pykrt_status st = pk_enter(stream->ctx, "pykrt_stream_destroy");
    CUresult res = st == PYKRT_SUCCESS && !stream->borrowed ? pk_drv.cuStreamDestroy(stream->cu) : CUDA_SUCCESS;
    pk_live_sub(stream->ctx, PK_LIVE_STREAM);
    pk_obj_release(stream, PK_STREAM);
    if (st != PYKRT_SUCCESS)
        return st;
    return res ? pk_cuda_fail(res, "cuStreamDestroy", "pykrt_stream_destroy") : PYKRT_SUCCESS;
}

pykrt_status pykrt_stream_synchronize(pykrt_stream *stream)
{
    if (!stream)
        return pk_fail(PYKRT_ERROR_INVALID_ARGUMENT,
                       "pykrt_stream_synchronize: stream is NULL (use pykrt_context_synchronize)");
    if (!pk_alive(stream, PK_STREAM))
        return pk_dead("pykrt_stream_synchronize", PK_STREAM);
    pykrt_status st = pk_enter(stream->ctx, "pykrt_stream_synchronize");
    if (st != PYKRT_SUCCESS)
        return st;
    /* The driver would fail too, but would also invalidate the capture. */
    if (pk_stream_capturing(stream))
        return pk_fail(PYKRT_ERROR_INVALID_ARGUMENT,
                       "pykrt_stream_synchronize: the stream is capturing a graph (end it with pykrt_graph_end first)");
    CUresult res = pk_drv.cuStreamSynchronize(stream->cu);
    return res ? pk_cuda_fail(res, "cuStreamSynchronize", "pykrt_stream_synchronize") : PYKRT_SUCCESS;
}

pykrt_status pykrt_stream_handle(const pykrt_stream *stream, void **custream)
{
    if (!stream || !custream)
        return pk_fail(PYKRT_ERROR_INVALID_ARGUMENT, "pykrt_stream_handle: %s is NULL", stream ? "custream" : "stream");
    if (!pk_alive(stream, PK_STREAM))
        return pk_dead("pykrt_stream_handle", PK_STREAM);
    *custream = stream->cu;
    return PYKRT_SUCCESS;
}

pykrt_status pykrt_event_create(pykrt_context *ctx, pykrt_event **out)
{
    if (!out)
        return pk_fail(PYKRT_ERROR_INVALID_ARGUMENT, "pykrt_event_create: out is NULL");
    *out = NULL;
    pykrt_status st = pk_enter(ctx, "pykrt_event_create");
    if (st != PYKRT_SUCCESS)
        return st;
    pykrt_event *e = pk_obj_new(PK_EVENT);
    if (!e)
        return pk_fail(PYKRT_ERROR_OUT_OF_MEMORY, "pykrt_event_create: out of host memory");
    CUresult res = pk_drv.cuEventCreate(&e->cu, CU_EVENT_DEFAULT);
    if (res != CUDA_SUCCESS) {
        pk_obj_release(e, PK_EVENT);
        return pk_cuda_fail(res, "cuEventCreate", "pykrt_event_create");
    }
    e->ctx = ctx;
    pk_live_add(ctx, PK_LIVE_EVENT);
    *out = e;
    return PYKRT_SUCCESS;
}

pykrt_status pykrt_event_destroy(pykrt_event *event)
{
    if (!event)
        return PYKRT_SUCCESS;
    if (!pk_alive(event, PK_EVENT))
        return pk_dead("pykrt_event_destroy", PK_EVENT);
    pykrt_status st = pk_enter(event->ctx, "pykrt_event_destroy");
    CUresult res = st == PYKRT_SUCCESS ? pk_drv.cuEventDestroy(event->cu) : CUDA_SUCCESS;
    pk_live_sub(event->ctx, PK_LIVE_EVENT);
    pk_obj_release(event, PK_EVENT);
    if (st != PYKRT_SUCCESS)
        return st;
    return res ? pk_cuda_fail(res, "cuEventDestroy", "pykrt_event_destroy") : PYKRT_SUCCESS;
}

pykrt_status pykrt_event_record(pykrt_event *event, pykrt_stream *stream)
{
    if (!event)
        return pk_fail(PYKRT_ERROR_INVALID_ARGUMENT, "pykrt_event_record: event is NULL");
    if (!pk_alive(event, PK_EVENT))
        return pk_dead("pykrt_event_record", PK_EVENT);
    if (stream && !pk_alive(stream, PK_STREAM))
        return pk_dead("pykrt_event_record", PK_STREAM);
    if (stream && stream->ctx != event->ctx)
        return pk_fail(PYKRT_ERROR_INVALID_ARGUMENT, "pykrt_event_record: the stream belongs to another context");
    pykrt_status st = pk_enter(event->ctx, "pykrt_event_record");
    if (st != PYKRT_SUCCESS)
        return st;
    CUresult res = pk_drv.cuEventRecord(event->cu, stream ? stream->cu : NULL);
    return res ? pk_cuda_fail(res, "cuEventRecord", "pykrt_event_record") : PYKRT_SUCCESS;
}

pykrt_status pykrt_event_synchronize(pykrt_event *event)
{
    if (!event)
        return pk_fail(PYKRT_ERROR_INVALID_ARGUMENT, "pykrt_event_synchronize: event is NULL");
    if (!pk_alive(event, PK_EVENT))
        return pk_dead("pykrt_event_synchronize", PK_EVENT);
    pykrt_status st = pk_enter(event->ctx, "pykrt_event_synchronize");
    if (st != PYKRT_SUCCESS)
        return st;
    CUresult res = pk_drv.cuEventSynchronize(event->cu);
    return res ? pk_cuda_fail(res, "cuEventSynchronize", "pykrt_event_synchronize") : PYKRT_SUCCESS;
}

pykrt_status pykrt_event_elapsed(pykrt_event *start, pykrt_event *end, float *ms)
{
    if (!start || !end || !ms)
        return pk_fail(PYKRT_ERROR_INVALID_ARGUMENT, "pykrt_event_elapsed: %s is NULL",
                       !start ? "start" : !end ? "end" : "ms");
    if (!pk_alive(start, PK_EVENT) || !pk_alive(end, PK_EVENT))
        return pk_dead("pykrt_event_elapsed", PK_EVENT);
    if (start->ctx != end->ctx)
        return pk_fail(PYKRT_ERROR_INVALID_ARGUMENT, "pykrt_event_elapsed: the events belong to different contexts");
    pykrt_status st = pk_enter(start->ctx, "pykrt_event_elapsed");
    if (st != PYKRT_SUCCESS)
        return st;
    CUresult res = pk_drv.cuEventElapsedTime(ms, start->cu, end->cu);
    return res ? pk_cuda_fail(res, "cuEventElapsedTime", "pykrt_event_elapsed") : PYKRT_SUCCESS;
}

pykrt_status pykrt_stream_wait_event(pykrt_stream *stream, pykrt_event *event)
{
    if (!event)
        return pk_fail(PYKRT_ERROR_INVALID_ARGUMENT, "pykrt_stream_wait_event: event is NULL");
    if (!pk_alive(event, PK_EVENT))
        return pk_dead("pykrt_stream_wait_event", PK_EVENT);
    if (stream && !pk_alive(stream, PK_STREAM))
        return pk_dead("pykrt_stream_wait_event", PK_STREAM);
    if (stream && stream->ctx != event->ctx)
        return pk_fail(PYKRT_ERROR_INVALID_ARGUMENT, "pykrt_stream_wait_event: the stream belongs to another context");
    pykrt_status st = pk_enter(event->ctx, "pykrt_stream_wait_event");
    if (st != PYKRT_SUCCESS)
        return st;
    CUresult res = pk_drv.cuStreamWaitEvent(stream ? stream->cu : NULL, event->cu, CU_EVENT_WAIT_DEFAULT);
    return res ? pk_cuda_fail(res, "cuStreamWaitEvent", "pykrt_stream_wait_event") : PYKRT_SUCCESS;
}
