-- The clickstream's sessions are Spark's own: session_window over the same views with
-- the same 30-minute gap gives the same sessions (start, end, views and dwell) per
-- user, both ways: a session missing on either side fails.
with spark_sessions as (
    select
        page_view.user_id,
        session_window(page_view.viewed_at, '30 minutes') as spark_session,
        count(*) as event_count,
        sum(page_view.dwell_ms) as total_dwell_ms
    from {{ ref('stg_clickstream__page_views') }} as page_view
    group by page_view.user_id, spark_session
),

ours as (
    select
        user_id,
        window_start,
        window_end,
        event_count,
        total_dwell_ms
    from {{ ref('page_view_sessions_30m') }}
)

select
    ours.window_end as our_end,
    ours.event_count as our_count,
    spark_sessions.event_count as spark_count,
    spark_sessions.spark_session.end as spark_end,
    coalesce(ours.user_id, spark_sessions.user_id) as user_id,
    coalesce(ours.window_start, spark_sessions.spark_session.start) as window_start
from ours
full outer join spark_sessions
    on
        ours.user_id = spark_sessions.user_id
        and ours.window_start = spark_sessions.spark_session.start
where
    ours.user_id is null
    or spark_sessions.user_id is null
    or ours.window_end != spark_sessions.spark_session.end
    or ours.event_count != spark_sessions.event_count
    or ours.total_dwell_ms != spark_sessions.total_dwell_ms
