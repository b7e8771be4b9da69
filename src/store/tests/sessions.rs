use super::temp_store;
use crate::agent::AgentEvent;
use crate::records::sessions::SessionTurn;
use crate::store::StoreError;
use serde_json::{Map, Value};

fn turn(message: &str) -> SessionTurn {
    SessionTurn {
        invocation_id: format!("e-{message}"),
        author: "demo".into(),
        user_message: message.into(),
        events: vec![
            AgentEvent::FinalResponse { text: "ok".into() },
            AgentEvent::Usage {
                prompt_tokens: 7,
                completion_tokens: 2,
            },
        ],
        event_offsets_ms: vec![3, 4],
        started_at: 1.5,
        latency_ms: 4,
    }
}

#[tokio::test]
async fn sessions_keep_their_turns_in_order() {
    let (_dir, store) = temp_store().await;
    let state: Map<String, Value> = serde_json::from_str(r#"{"tier": "gold"}"#).unwrap();
    let session = store
        .create_session("demo", "alice", Some("s1"), &state)
        .await
        .unwrap();
    assert_eq!((session.summary.title.as_str(), session.turns.len()), ("", 0));
    assert!(matches!(
        store
            .create_session("demo", "alice", Some("s1"), &Map::new())
            .await,
        Err(StoreError::Conflict(_))
    ));
    let long = "Weather in Paris and twenty euros in dollars, and then the order status of A1001 please";
    store
        .append_turn("demo", "alice", "s1", &turn(long))
        .await
        .unwrap();
    store
        .append_turn("demo", "alice", "s1", &turn("and in London?"))
        .await
        .unwrap();
    let session = store.get_session("demo", "alice", "s1").await.unwrap();
    assert_eq!(session.state["tier"], "gold");
    assert_eq!(session.turns.len(), 2);
    assert_eq!(session.turns[1].user_message, "and in London?");
    assert_eq!(session.turns[0], turn(long));
    assert_eq!(
        session.summary.title.chars().count(),
        61,
        "titled by the first message, shortened"
    );

    store
        .rename_session("demo", "alice", "s1", "  Paris trip ")
        .await
        .unwrap();
    let other = store
        .create_session("demo", "alice", None, &Map::new())
        .await
        .unwrap();
    let list = store.list_sessions("demo", "alice").await.unwrap();
    assert_eq!(list.len(), 2);
    assert!(list.iter().any(|s| s.title == "Paris trip" && s.turn_count == 2));
    assert!(
        store.list_sessions("demo", "bob").await.unwrap().is_empty(),
        "users do not see each other's"
    );
    assert!(matches!(
        store.get_session("demo", "bob", "s1").await,
        Err(StoreError::NotFound(_))
    ));
    assert!(matches!(
        store.append_turn("demo", "bob", "s1", &turn("x")).await,
        Err(StoreError::NotFound(_))
    ));

    store
        .delete_session("demo", "alice", &other.summary.id)
        .await
        .unwrap();
    assert!(matches!(
        store.delete_session("demo", "alice", &other.summary.id).await,
        Err(StoreError::NotFound(_))
    ));
    assert_eq!(store.list_sessions("demo", "alice").await.unwrap().len(), 1);
}

#[tokio::test]
async fn a_live_turn_holds_its_session_across_processes_until_recorded_or_abandoned() {
    let (_dir, running) = temp_store().await;
    let other = crate::store::Store::open(running.location()).await.unwrap();
    running
        .create_session("demo", "alice", Some("s1"), &Map::new())
        .await
        .unwrap();
    let recorded = turn("hello");
    let id = recorded.invocation_id.as_str();
    assert!(running.begin_live_turn("s1", id, "hello").await.unwrap());
    assert!(
        !other.begin_live_turn("s1", "e-other", "again").await.unwrap(),
        "one turn at a time"
    );
    for (position, event) in recorded.events.iter().enumerate() {
        running
            .push_live_event("s1", id, position as i64, event)
            .await
            .unwrap();
    }
    let seen = other.live_turn("s1", -1).await.unwrap().unwrap();
    assert_eq!(
        (
            seen.invocation_id.as_str(),
            seen.user_message.as_str(),
            seen.abandoned
        ),
        (id, "hello", false)
    );
    assert_eq!(seen.events.len(), 2);
    assert_eq!(
        other.live_turn("s1", 0).await.unwrap().unwrap().events.len(),
        1,
        "only those after"
    );

    // A stop asked through the other process reaches the running one at its next renewal.
    assert!(!running.renew_live_turn("s1", id).await.unwrap());
    assert!(other.request_turn_stop("s1").await.unwrap());
    assert!(running.renew_live_turn("s1", id).await.unwrap());
    assert!(
        other.renew_live_turn("s1", id).await.unwrap(),
        "not the other's turn: it stops"
    );

    running
        .append_turn("demo", "alice", "s1", &recorded)
        .await
        .unwrap();
    assert_eq!(
        other.live_turn("s1", -1).await.unwrap(),
        None,
        "recorded, it is over"
    );
    assert!(!other.request_turn_stop("s1").await.unwrap());
    assert!(other.begin_live_turn("s1", "e-next", "next").await.unwrap());
}
