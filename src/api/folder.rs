//! Server functions of folder mode: which folder is open (the page header) and where an
//! evalset's file stands (its page). Outside folder mode both answer `None`.

use leptos::prelude::*;

#[cfg(feature = "ssr")]
use crate::api::services;
use crate::records::evalsets::{EvalSetFile, FolderInfo};

#[server]
pub async fn open_folder() -> Result<Option<FolderInfo>, ServerFnError> {
    Ok(services().folder.map(|folder| FolderInfo {
        path: folder.path(),
        chat_off: folder.chat_off().map(str::to_string),
    }))
}

#[server]
pub async fn eval_set_file_status(
    app: String,
    eval_set_id: String,
) -> Result<Option<EvalSetFile>, ServerFnError> {
    Ok(services()
        .folder
        .and_then(|folder| folder.eval_set_file(&app, &eval_set_id)))
}
