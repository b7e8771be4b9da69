//! What this database pulled from other servers: each evalset's tag as pulled, which a push
//! of it must still match on that server.

use super::SqlStore;
use crate::store::StoreResult;

impl SqlStore {
    pub async fn record_pull(
        &self,
        server: &str,
        app: &str,
        eval_set_id: &str,
        tag: &str,
    ) -> StoreResult<()> {
        sqlx::query(
            "INSERT INTO pulled_eval_sets (server, app_name, eval_set_id, tag) VALUES ($1, $2, $3, $4) \
             ON CONFLICT (server, app_name, eval_set_id) DO UPDATE SET tag = excluded.tag",
        )
        .bind(server)
        .bind(app)
        .bind(eval_set_id)
        .bind(tag)
        .execute(&self.pool)
        .await?;
        Ok(())
    }

    pub async fn pulled_tag(
        &self,
        server: &str,
        app: &str,
        eval_set_id: &str,
    ) -> StoreResult<Option<String>> {
        Ok(sqlx::query_scalar(
            "SELECT tag FROM pulled_eval_sets WHERE server = $1 AND app_name = $2 AND eval_set_id = $3",
        )
        .bind(server)
        .bind(app)
        .bind(eval_set_id)
        .fetch_optional(&self.pool)
        .await?)
    }
}
